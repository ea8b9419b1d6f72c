/**
 * Fingerprints of an ingestion's outputs for bench/snapshots.ts: SHA-256 of facts.ndjson,
 * bad.ndjson, stats.json and manifest.json with what differs from run to run taken out (run
 * ids, the temp folder, timings, timestamps, the code commit), so a faster build can be checked
 * byte for byte against the figures recorded from the previous one (snapshots-baseline.json).
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Run ids of any supplier: `<supplier>_<YYYYMMDDTHHMMSSZ>_<rand6>`. */
const RUN_ID = /[a-z0-9][a-z0-9_-]*_\d{8}T\d{6}Z_[a-z0-9]{6}/g;

/** The recorded fingerprints, by workload (`csv-1m`, `csv-1m-diff`, `xlsx`). */
export const BASELINE_FILE = fileURLToPath(new URL("snapshots-baseline.json", import.meta.url));

export type Digests = Record<"facts" | "bad" | "stats" | "manifest", string>;

interface Baseline {
  rows: number;
  xlsxRows: number;
  workloads: Record<string, Digests>;
}

/** SHA-256 of an NDJSON file with run ids replaced, streamed line by line. */
async function ndjsonDigest(file: string): Promise<string> {
  const h = createHash("sha256");
  let carry = "";
  for await (const chunk of createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as string);
    const cut = text.lastIndexOf("\n") + 1;
    h.update(text.slice(0, cut).replace(RUN_ID, "RUN"));
    carry = text.slice(cut);
  }
  h.update(carry.replace(RUN_ID, "RUN"));
  return h.digest("hex");
}

/**
 * SHA-256 of a JSON document without the keys that change from run to run; `input` (the input
 * file's SHA-256) is replaced too when given, and the input's size left out.
 */
function jsonDigest(file: string, drop: string[], work: string, input?: string): string {
  const doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  for (const k of drop) delete doc[k];
  let text = JSON.stringify(doc).replaceAll(work, "WORK").replace(RUN_ID, "RUN");
  if (input) text = text.replaceAll(input, "INPUT").replace(/"(input_)?size":\d+/g, '"$1size":0');
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Fingerprints of `runs/<runId>/` under a data dir's snapshot root. `inputVaries`: the input
 * is regenerated with different bytes each time (an XLSX workbook records when it was
 * written), so its SHA-256 and size are left out.
 */
export async function runDigests(
  runDir: string,
  work: string,
  inputVaries = false,
): Promise<Digests> {
  const manifest = path.join(runDir, "manifest.json");
  const input = inputVaries
    ? (JSON.parse(readFileSync(manifest, "utf8")) as { input_sha256: string }).input_sha256
    : undefined;
  return {
    facts: await ndjsonDigest(path.join(runDir, "facts.ndjson")),
    bad: await ndjsonDigest(path.join(runDir, "bad.ndjson")),
    stats: jsonDigest(path.join(runDir, "stats.json"), ["timing_ms"], work, input),
    manifest: jsonDigest(manifest, ["started_at", "finished_at", "code_commit"], work, input),
  };
}

/**
 * Compares fingerprints with the recorded ones (or records them with `record`). Returns one
 * line per workload for the summary; `ok` is false when any output differs.
 */
export function checkDigests(
  got: Record<string, Digests>,
  sizes: { rows: number; xlsxRows: number },
  record: boolean,
): { ok: boolean; lines: string[] } {
  if (record) {
    const baseline: Baseline = { ...sizes, workloads: got };
    writeFileSync(BASELINE_FILE, `${JSON.stringify(baseline, null, 2)}\n`);
    return { ok: true, lines: [`  outputs: recorded in ${path.basename(BASELINE_FILE)}`] };
  }
  if (!existsSync(BASELINE_FILE)) {
    return { ok: false, lines: ["  outputs: no recorded baseline (run with --record-outputs)"] };
  }
  const baseline = JSON.parse(readFileSync(BASELINE_FILE, "utf8")) as Baseline;
  if (baseline.rows !== sizes.rows || baseline.xlsxRows !== sizes.xlsxRows) {
    return { ok: true, lines: ["  outputs: not compared (baseline recorded for other sizes)"] };
  }
  let ok = true;
  const lines = Object.entries(got).map(([name, d]) => {
    const want = baseline.workloads[name];
    const diff = want
      ? (Object.keys(d) as Array<keyof Digests>).filter((k) => d[k] !== want[k])
      : ["(not recorded)"];
    ok &&= diff.length === 0;
    return `  outputs ${name}: ${diff.length === 0 ? "byte-identical to the recorded build (OK)" : `DIFFERENT: ${diff.join(", ")}`}`;
  });
  return { ok, lines };
}
