import { readFileSync, readdirSync } from "node:fs";
import { indexLines } from "../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
import { linesFromTable } from "../src/pipelines/snapshots/stages/publish/artifacts/line-table.ts";
const base = "/tmp/prof/tmpl/etl_data/raw_v1/state_store/bench/";
const dir = base + readdirSync(base)[0] + "/keys/";
const files = readdirSync(dir).filter((f) => f.endsWith(".tsv"));
const data = files.map((f) => [readFileSync(dir + f), readFileSync(dir + f.replace(".tsv", ".lines"))] as const);
for (let rep = 0; rep < 6; rep++) {
  let t = performance.now(); for (const [x, y] of data) linesFromTable(x, y); const a = performance.now() - t;
  t = performance.now(); for (const [x] of data) indexLines(x); const b = performance.now() - t;
  console.log(`linesFromTable ${a.toFixed(1)} indexLines ${b.toFixed(1)}`);
}
