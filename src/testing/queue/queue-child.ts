// A worker in its own process for the queue conformance suite: consumes one queue and logs
// each handler start/end as a JSON line appended (O_APPEND) to a file shared with the test.
// Run: node --import tsx queue-child.ts '<json plan>'. Prints "ready" once consuming.

import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { WorkOptions } from "../../engine/queue/queue.ts";
import { openQueueFromSpec, type QueueSpec } from "./queue-spec.ts";

/** What the child does. */
export interface ChildPlan {
  spec: QueueSpec;
  queue: string;
  work: WorkOptions;
  /** The shared log file. */
  log: string;
  /** How long each handler takes; null = until the process is killed. */
  holdMs: number | null;
}

const plan = JSON.parse(process.argv[2] ?? "{}") as ChildPlan;
const { queue, close } = await openQueueFromSpec(plan.spec);

function log(ev: "start" | "end", id: string, attempt: number): void {
  const line = { ev, id, attempt, pid: process.pid, t: Date.now() };
  appendFileSync(plan.log, `${JSON.stringify(line)}\n`, { flag: "a" });
}

await queue.work(plan.queue, plan.work, async (message) => {
  log("start", message.id, message.attempt);
  await sleep(plan.holdMs ?? 2 ** 31 - 1);
  log("end", message.id, message.attempt);
});

process.once("SIGTERM", () => {
  void close().then(() => process.exit(0));
});
process.stdout.write("ready\n");
