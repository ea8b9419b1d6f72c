// One engine's run of the queue benchmark, in its own process so that peak RSS is its own.
// Usage: tsx bench/queue-engine.ts <embedded-sqlite|embedded-postgres|pg-boss|pg-boss-raw> <url|dir>
// Prints one JSON line: { engine, sendPerSec, singleSendPerSec, processPerSec, peakRssMb }.
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import type { Queue } from "../src/engine/queue/queue.ts";
import { openQueueFromSpec } from "../src/testing/queue/queue-spec.ts";
import { BENCH, type EngineResult } from "./queue-workload.ts";

const [engine, where] = process.argv.slice(2) as [EngineResult["engine"], string];

function rate(count: number, ms: number): number {
  return Math.round((count / ms) * 1000);
}

/** Sends, then consumes, BENCH.messages no-op messages through a Tidemark Queue. */
async function runAdapter(queue: Queue): Promise<Omit<EngineResult, "engine" | "peakRssMb">> {
  const name = "bench.noop";
  let t0 = performance.now();
  for (let i = 0; i < BENCH.single; i++) await queue.send("bench.single", { i });
  const singleSendPerSec = rate(BENCH.single, performance.now() - t0);

  t0 = performance.now();
  const items = Array.from({ length: BENCH.messages }, (_, i) => ({ payload: { i } }));
  for (let i = 0; i < items.length; i += BENCH.sendBatch) {
    await queue.sendBatch(name, items.slice(i, i + BENCH.sendBatch));
  }
  const sendPerSec = rate(BENCH.messages, performance.now() - t0);

  let done = 0;
  let finish!: () => void;
  const all = new Promise<void>((resolve) => {
    finish = resolve;
  });
  t0 = performance.now();
  await queue.work(name, BENCH.work, async () => {
    if (++done === BENCH.messages) finish();
  });
  await all;
  // Counted once the last completion is recorded, like the raw loop's last complete().
  await queue.stop({ graceMs: 10_000 });
  const processPerSec = rate(BENCH.messages, performance.now() - t0);
  const left = (await queue.stats()).find((s) => s.queue === name);
  if (left && (left.queued > 0 || left.active > 0))
    throw new Error(`messages left: ${JSON.stringify(left)}`);
  return { sendPerSec, singleSendPerSec, processPerSec };
}

/**
 * The same workload on pg-boss without Tidemark: insert in the same batches; consume with
 * fetch + complete loops (as many loops as the adapter has claims in flight, same batch
 * size). pg-boss's own work() sleeps its polling interval (0.5 s at least) after every
 * batch, which would cap it far below this.
 */
async function runRaw(url: string): Promise<Omit<EngineResult, "engine" | "peakRssMb">> {
  const { default: PgBossClass } = await import("pg-boss");
  const boss: PgBoss = new PgBossClass({ connectionString: url, max: 10, schedule: false });
  boss.on("error", (err) => console.error(err));
  await boss.start();
  const name = "bench.noop";
  // Creating the queue is timed, as the adapter creates its queue on first send.
  let t0 = performance.now();
  await boss.createQueue("bench.single");
  for (let i = 0; i < BENCH.single; i++) await boss.send("bench.single", { i });
  const singleSendPerSec = rate(BENCH.single, performance.now() - t0);

  t0 = performance.now();
  await boss.createQueue(name);
  const jobs = Array.from({ length: BENCH.messages }, (_, i) => ({ name, data: { i } }));
  for (let i = 0; i < jobs.length; i += BENCH.sendBatch) {
    await boss.insert(jobs.slice(i, i + BENCH.sendBatch));
  }
  const sendPerSec = rate(BENCH.messages, performance.now() - t0);

  let done = 0;
  const noop = async (_job: unknown) => {};
  const loop = async () => {
    while (done < BENCH.messages) {
      const batch = await boss.fetch(name, { batchSize: BENCH.work.batchSize });
      if (batch.length === 0) {
        await sleep(BENCH.work.pollIntervalMs);
        continue;
      }
      await Promise.all(batch.map(noop));
      await boss.complete(
        name,
        batch.map((j) => j.id),
      );
      done += batch.length;
    }
  };
  t0 = performance.now();
  const loops = Math.ceil(BENCH.work.concurrency / BENCH.work.batchSize);
  await Promise.all(Array.from({ length: loops }, loop));
  const processPerSec = rate(BENCH.messages, performance.now() - t0);
  await boss.stop({ graceful: false });
  return { sendPerSec, singleSendPerSec, processPerSec };
}

async function main(): Promise<void> {
  let figures: Omit<EngineResult, "engine" | "peakRssMb">;
  if (engine === "pg-boss-raw") {
    figures = await runRaw(where);
  } else {
    const spec =
      engine === "embedded-sqlite"
        ? ({
            engine: "embedded",
            database: {
              dialect: "sqlite",
              path: path.join(where, "bench.db"),
              busyTimeoutMs: 5000,
            },
          } as const)
        : engine === "embedded-postgres"
          ? ({ engine: "embedded", database: { dialect: "postgres", url: where } } as const)
          : ({
              engine: "pg-boss",
              url: where,
              schema: "pgboss",
              maintenanceIntervalSeconds: 30,
            } as const);
    const { queue, close } = await openQueueFromSpec(spec);
    try {
      figures = await runAdapter(queue);
    } finally {
      await close();
    }
  }
  // maxRSS is in kilobytes on Linux.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const result: EngineResult = { engine, ...figures, peakRssMb };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
