// Rakuten pipeline benchmark (issue 15). Scenario 1: 100,000 items through `rakuten.item`
// against the API fake with its rate limit off — first load, unchanged re-run, re-run with 1% of
// the items changed, and `rakuten.reapply item` after an apply-version bump — each in its own
// process (items/s, peak RSS, API calls, blob puts, domain and ledger row writes counted by
// SQLite triggers), next to the floor: a bare loop fetching the same items from the same fake at
// the same concurrency, through the Rakuten client's transport (node:http with keep-alive). After
// the first load, the put floor: as many bare raw puts of the first load's mean size, at the
// job's put concurrency, through the fs blob store (what the disk allows a first load). Last, the
// unchanged re-run and its floor again with the fake answering each call after --latency-ms
// (default 2 ms; real API calls take far longer): the same comparison when the API is not free.
// Scenario 2: the fake enforcing 1 request/second, `rakuten.ranking` and
// `rakuten.item` in two processes for 60 s: calls answered 429 and the share of the allowed rate.
//
// Each phase runs bench/rakuten-child.ts bundled like dist/ (as installed), or through tsx with
// --from-source.
//
//   npm run bench:rakuten [-- --items N] [--concurrency C] [--rps R] [--rate-seconds S]
//                         [--batch-size B] [--latency-ms L] [--skip-rate] [--skip-load]
//                         [--from-source] [--keep]
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { endpointPath } from "../src/pipelines/rakuten/client/endpoints.ts";
import {
  FAKE_ACCESS_KEY,
  FAKE_APPLICATION_ID,
  startRakutenFake,
} from "../src/pipelines/rakuten/fake/start-fake.ts";
import type { PhaseInput } from "./rakuten-child.ts";
import {
  bumpItemApplyVersion,
  bundleChild,
  dropWriteCounters,
  installWriteCounters,
  runPhase,
  takeWriteCounts,
} from "./rakuten-support.ts";
import { benchArgs } from "./support/argv.ts";

const { flag, num } = benchArgs();
const ITEMS = num("--items", 100_000);
const CONCURRENCY = num("--concurrency", 8);
/** Targets per ledger read and commit of every job (the jobs' `batch_size`, default 200). */
const BATCH_SIZE = num("--batch-size", 200);
/** Client-side rate of the load scenario (the fake's limit is off, so is ours in effect). */
const RPS = num("--rps", 1_000_000);
const RATE_SECONDS = num("--rate-seconds", 60);
/** The API's answer time in the latency scenario (0 skips it). */
const LATENCY_MS = num("--latency-ms", 2, 0);

const work = mkdtempSync(path.join(tmpdir(), "tidemark-bench-rakuten-"));
const fmt = (n: number) => Math.round(n).toLocaleString("en");
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Phase {
  label: string;
  ms: number;
  cpuMs: number;
  floorCpuMs: number | undefined;
  rssMb: number;
  apiCalls: number;
  blobPuts: number | undefined;
  domainWrites: number | undefined;
  ledgerWrites: number | undefined;
  floorMs: number | undefined;
  status: string;
}

/** The fastest floor of the run: what the machine allows when it is not busy elsewhere. */
interface BestFloor {
  ms: number;
  cpuMs: number;
}

function line(p: Phase, items: number, best: BestFloor): string {
  const ratio = p.floorMs === undefined ? "-" : (p.ms / best.ms).toFixed(2);
  const cpuRatio = p.floorCpuMs === undefined ? "-" : (p.cpuMs / best.cpuMs).toFixed(2);
  const w = (n: number | undefined) => (n === undefined ? "-" : fmt(n));
  return [
    p.label.padEnd(22),
    secs(p.ms).padStart(8),
    fmt(items / (p.ms / 1000)).padStart(9),
    `${p.rssMb.toFixed(0)} MB`.padStart(8),
    fmt(p.apiCalls).padStart(9),
    w(p.blobPuts).padStart(9),
    w(p.domainWrites).padStart(13),
    w(p.ledgerWrites).padStart(13),
    ratio.padStart(12),
    `${((p.cpuMs * 1000) / items).toFixed(0)} µs`.padStart(10),
    cpuRatio.padStart(10),
    `  ${p.status}`,
  ].join(" ");
}

async function loadScenario(): Promise<void> {
  console.log(
    `\nScenario 1: ${fmt(ITEMS)} items through rakuten.item (fake rate limit off, concurrency ${CONCURRENCY}, client rate ${RPS}/s)`,
  );
  const api = await startRakutenFake({
    size: ITEMS,
    knobs: { rateLimit: false },
    recordRequests: false,
  });
  const dataDir = path.join(work, "data");
  mkdirSync(dataDir, { recursive: true });
  const dbPath = path.join(work, "tidemark.db");
  const common = {
    url: api.url,
    items: ITEMS,
    concurrency: CONCURRENCY,
    appId: FAKE_APPLICATION_ID,
    accessKey: FAKE_ACCESS_KEY,
  };
  const job = (
    jobType: string,
    params: Record<string, unknown>,
    withItemCodes: boolean,
  ): PhaseInput => ({
    ...common,
    phase: "job",
    dataDir,
    dbPath,
    jobType,
    params,
    withItemCodes,
    rpsOverride: RPS,
  });
  const measure = async (label: string, input: PhaseInput) => {
    api.fake.resetStats();
    // The fake runs in this process: its CPU per call says whether it or the client limits.
    const fakeCpu = process.cpuUsage();
    const r = await runPhase(input);
    const fakeUs = (({ user, system }) => user + system)(process.cpuUsage(fakeCpu));
    const calls = api.fake.stats.calls;
    const s = (r.summary ?? {}) as Record<string, unknown>;
    const perCall = calls > 0 ? `, fake ${(fakeUs / calls).toFixed(0)} µs CPU/call` : "";
    const mem = r.memory
      ? `, peak RSS ${r.rssMb.toFixed(0)} MB, at end ${JSON.stringify(r.memory)}`
      : "";
    console.log(
      `  ${label}: ${secs(r.ms)} (CPU ${secs(Number(r.cpuMs))}${perCall})${mem}, ${r.status ?? `ok ${r.ok}`}${r.error ? ` (${r.error})` : ""}${input.phase === "job" ? `, summary ${JSON.stringify(s)}` : ""}`,
    );
    return { r, calls };
  };
  const floor = async (label: string) => {
    const { r } = await measure(label, { ...common, phase: "floor" });
    return { ms: r.ms, cpuMs: Number(r.cpuMs) };
  };
  const phases: Phase[] = [];
  let putFloorMs: { ms: number; cpuMs: number } | undefined;
  let latency: { floorMs: number; ms: number } | undefined;
  const itemParams = { concurrency: CONCURRENCY, batch_size: BATCH_SIZE };
  try {
    const floor1 = await floor("floor (bare request loop)");
    let m = await measure("first load", job("rakuten.item", itemParams, true));
    phases.push({
      label: "first load",
      ms: m.r.ms,
      cpuMs: Number(m.r.cpuMs),
      rssMb: m.r.rssMb,
      apiCalls: m.calls,
      blobPuts: m.r.blobPuts as number,
      domainWrites: undefined,
      ledgerWrites: undefined,
      floorMs: floor1.ms,
      floorCpuMs: floor1.cpuMs,
      status: String(m.r.status),
    });

    // What the disk allows: the same number of raw puts alone, at the job's put concurrency.
    const meanBytes = Math.round(Number(m.r.rawBytes) / Math.max(1, Number(m.r.blobPuts)));
    const putFloor = await measure(
      `put floor (${fmt(ITEMS)} bare raw puts of ${fmt(meanBytes)} B)`,
      {
        ...common,
        phase: "puts",
        dataDir: path.join(work, "put-floor"),
        bodyBytes: meanBytes,
      },
    );
    putFloorMs = { ms: putFloor.r.ms, cpuMs: Number(putFloor.r.cpuMs) };

    const floor2 = await floor("floor (bare request loop)");
    installWriteCounters(dbPath);
    m = await measure("unchanged re-run", job("rakuten.item", itemParams, true));
    let w = takeWriteCounts(dbPath);
    phases.push({
      label: "unchanged re-run",
      ms: m.r.ms,
      cpuMs: Number(m.r.cpuMs),
      rssMb: m.r.rssMb,
      apiCalls: m.calls,
      blobPuts: m.r.blobPuts as number,
      domainWrites: w.domain,
      ledgerWrites: w.ledger,
      floorMs: floor2.ms,
      floorCpuMs: floor2.cpuMs,
      status: String(m.r.status),
    });

    const changed = api.fake.catalogue.changePrices(Math.ceil(ITEMS / 100)).length;
    const floor3 = await floor("floor (bare request loop)");
    m = await measure(`1% changed (${fmt(changed)})`, job("rakuten.item", itemParams, true));
    w = takeWriteCounts(dbPath);
    console.log(`    row writes by table: ${JSON.stringify(w.byTable)}`);
    phases.push({
      label: "1% changed re-run",
      ms: m.r.ms,
      cpuMs: Number(m.r.cpuMs),
      rssMb: m.r.rssMb,
      apiCalls: m.calls,
      blobPuts: m.r.blobPuts as number,
      domainWrites: w.domain,
      ledgerWrites: w.ledger,
      floorMs: floor3.ms,
      floorCpuMs: floor3.cpuMs,
      status: String(m.r.status),
    });

    dropWriteCounters(dbPath);
    const bumped = bumpItemApplyVersion(dbPath);
    console.log(
      `  apply-version bump simulated: ${fmt(bumped)} item rows now carry the previous version`,
    );
    m = await measure(
      "reapply after bump",
      job("rakuten.reapply", { entity: "item", ...itemParams }, false),
    );
    phases.push({
      label: "reapply after bump",
      ms: m.r.ms,
      cpuMs: Number(m.r.cpuMs),
      rssMb: m.r.rssMb,
      apiCalls: m.calls,
      blobPuts: m.r.blobPuts as number,
      domainWrites: undefined,
      ledgerWrites: undefined,
      floorMs: undefined,
      floorCpuMs: undefined,
      status: String(m.r.status),
    });
    if (LATENCY_MS > 0) latency = await latencyScenario(api, measure, floor, job, itemParams);
  } finally {
    await api.close();
  }

  console.log(
    "\n  phase                      time   items/s  peak RSS  API calls blob puts domain writes ledger writes Tidemark/floor  CPU/item  CPU ratio",
  );
  // The same floor measured minutes apart on a shared VM can take twice as long: a phase judged
  // against a slow one looks better than it is. Every phase is judged against the fastest floor
  // of the run (the ratio to the floor measured just before it is printed next to it).
  const floored = phases.filter((p) => p.floorMs !== undefined && p.floorCpuMs !== undefined);
  const best: BestFloor = {
    ms: Math.min(...floored.map((p) => p.floorMs as number)),
    cpuMs: Math.min(...floored.map((p) => p.floorCpuMs as number)),
  };
  for (const p of phases) console.log(`  ${line(p, ITEMS, best)}`);
  const [first, unchanged, , reapply] = phases;
  const verdict = (ok: boolean) => (ok ? "OK" : "MISSED");
  const own = (p: Phase) =>
    `; ${(p.ms / (p.floorMs as number)).toFixed(2)}x the floor just before it`;
  console.log("\n  Targets");
  if (first) {
    console.log(
      `    (floors measured in this run: ${floored.map((p) => secs(p.floorMs as number)).join(", ")}; judged against the fastest, ${secs(best.ms)})`,
    );
    console.log(
      `    (CPU time per item, robust to a busy machine: first load ${(first.cpuMs / best.cpuMs).toFixed(2)}x the floor's, unchanged ${(phases[1] ? phases[1].cpuMs / best.cpuMs : Number.NaN).toFixed(2)}x)`,
    );
    console.log(
      `    first load <= 2x floor: ${(first.ms / best.ms).toFixed(2)}x ${verdict(first.ms <= 2 * best.ms)}${own(first)}`,
    );
    if (putFloorMs) {
      const putRate = ITEMS / (putFloorMs.ms / 1000);
      console.log(
        `    (the raw puts alone: ${secs(putFloorMs.ms)}, ${fmt(putRate)} puts/s, ${((putFloorMs.cpuMs * 1000) / ITEMS).toFixed(0)} µs CPU/put; first load ${(first.ms / putFloorMs.ms).toFixed(2)}x that)`,
      );
    }
  }
  if (unchanged) {
    const rate = ITEMS / (unchanged.ms / 1000);
    console.log(
      `    unchanged re-run <= 1.2x floor: ${(unchanged.ms / best.ms).toFixed(2)}x ${verdict(unchanged.ms <= 1.2 * best.ms)}${own(unchanged)}; >= 5,000 items/s: ${fmt(rate)} ${verdict(rate >= 5000)}`,
    );
    console.log(
      `    unchanged re-run: ${unchanged.blobPuts} blob puts, ${unchanged.domainWrites} domain row writes ${verdict(unchanged.blobPuts === 0 && unchanged.domainWrites === 0)}`,
    );
  }
  if (reapply) {
    const rate = ITEMS / (reapply.ms / 1000);
    console.log(
      `    reapply >= 20,000 items/s: ${fmt(rate)} ${verdict(rate >= 20_000)} (${reapply.apiCalls} API calls)`,
    );
  }
  if (latency) {
    console.log(
      `    (against an API answering after ${LATENCY_MS} ms: unchanged re-run ${secs(latency.ms)}, floor ${secs(latency.floorMs)}, ${(latency.ms / latency.floorMs).toFixed(2)}x)`,
    );
  }
  const peak = Math.max(...phases.map((p) => p.rssMb));
  console.log(`    peak RSS <= 300 MB: ${peak.toFixed(0)} MB ${verdict(peak <= 300)}`);
}

/**
 * The unchanged re-run and its floor again, the fake answering every call after LATENCY_MS (as
 * any real API does, by far more): how much of Tidemark's work hides behind the wait.
 */
async function latencyScenario(
  api: Awaited<ReturnType<typeof startRakutenFake>>,
  measure: (label: string, input: PhaseInput) => Promise<{ r: { ms: number } }>,
  floor: (label: string) => Promise<{ ms: number }>,
  job: (type: string, params: Record<string, unknown>, codes: boolean) => PhaseInput,
  itemParams: Record<string, unknown>,
): Promise<{ floorMs: number; ms: number }> {
  api.server.faults.delayMs = LATENCY_MS;
  try {
    const f = await floor(`floor, API answering after ${LATENCY_MS} ms`);
    const m = await measure(
      `unchanged re-run, API answering after ${LATENCY_MS} ms`,
      job("rakuten.item", itemParams, true),
    );
    return { floorMs: f.ms, ms: m.r.ms };
  } finally {
    api.server.faults.delayMs = 0;
  }
}

async function rateScenario(): Promise<void> {
  console.log(
    `\nScenario 2: fake enforcing 1 request/second; rakuten.ranking and rakuten.item in two processes for ${RATE_SECONDS} s`,
  );
  const size = 2000;
  const api = await startRakutenFake({ size, knobs: { rateLimit: true, requestsPerSecond: 1 } });
  const dataDir = path.join(work, "rate-data");
  mkdirSync(dataDir, { recursive: true });
  const base = {
    url: api.url,
    items: size,
    concurrency: 4,
    appId: FAKE_APPLICATION_ID,
    accessKey: FAKE_ACCESS_KEY,
    phase: "job" as const,
    dataDir,
    dbPath: path.join(work, "rate.db"),
    rps: 1,
  };
  const genres = [...api.fake.catalogue.genres.keys()];
  const children: Array<ReturnType<typeof import("node:child_process").spawn>> = [];
  const itemPath = endpointPath("item", "openapi");
  try {
    const ranking = runPhase(
      {
        ...base,
        jobType: "rakuten.ranking",
        params: { genre_ids: genres, concurrency: 4 },
        repeat: true,
      },
      (c) => children.push(c),
    );
    // The first process migrates the database; the second starts once it is calling the API.
    while (api.server.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    const item = runPhase(
      {
        ...base,
        jobType: "rakuten.item",
        params: { concurrency: 4 },
        withItemCodes: true,
        codeLimit: 1000,
        repeat: true,
      },
      (c) => children.push(c),
    );
    while (!api.server.requests.some((r) => r.path.endsWith(itemPath)))
      await new Promise((r) => setTimeout(r, 50));
    const start = api.server.requests.find((r) => r.path.endsWith(itemPath))!.receivedAt;
    await new Promise((r) => setTimeout(r, RATE_SECONDS * 1000 + 500));
    const inWindow = api.server.requests.filter(
      (r) => r.receivedAt >= start && r.receivedAt < start + RATE_SECONDS * 1000,
    );
    const rejected = api.fake.stats.rateLimited + api.fake.stats.burst429;
    for (const c of children) c.kill("SIGTERM");
    await Promise.allSettled([ranking, item]);
    const itemCalls = inWindow.filter((r) => r.path.endsWith(itemPath)).length;
    const answered = inWindow.length - rejected;
    const allowed = RATE_SECONDS * 1;
    console.log(
      `  calls in the ${RATE_SECONDS} s window: ${inWindow.length} (ranking ${inWindow.length - itemCalls}, item ${itemCalls}); answered 429: ${rejected} (target 0: ${rejected === 0 ? "OK" : "MISSED"})`,
    );
    console.log(
      `  use of the allowed rate: ${answered} of ${allowed} = ${((answered / allowed) * 100).toFixed(1)}% (target >= 95%: ${answered >= 0.95 * allowed ? "OK" : "MISSED"})`,
    );
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    await api.close();
  }
}

console.log(`Rakuten benchmark in ${work}`);
try {
  if (!flag("--from-source")) await bundleChild(path.join(work, "child"));
  if (!flag("--skip-load")) await loadScenario();
  if (!flag("--skip-rate")) await rateScenario();
} finally {
  if (!flag("--keep")) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
