import { readFileSync, writeFileSync, readdirSync, chmodSync } from "node:fs";
import { indexLines } from "../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
const base = "/tmp/prof/tmpl/etl_data/raw_v1/state_store/bench/";
const dir = base + readdirSync(base)[0] + "/keys/";
chmodSync(dir, 0o755);
for (const f of readdirSync(dir).filter((f) => f.endsWith(".tsv"))) {
  const text = readFileSync(dir + f); const l = indexLines(text);
  const tab = Buffer.alloc(l.count * 8);
  for (let k = 0; k < l.count; k++) { tab.writeInt32LE(l.hash[k]!, k * 8); tab.writeInt32LE((k + 1 < l.count ? l.start[k + 1]! : text.length) - l.start[k]!, k * 8 + 4); }
  writeFileSync(dir + f.replace(".tsv", ".lines"), tab);
}
chmodSync(dir, 0o555);
