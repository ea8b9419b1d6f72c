import { readFileSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { indexLines } from "../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
const base = "/tmp/prof/tmpl/etl_data/raw_v1/state_store/bench/";
const id = readdirSync(base)[0];
const t = readFileSync(base + id + "/keys/0000.tsv");
const n = Number(process.argv[2] ?? 20000);
let end = 0; for (let i = 0; i < n; i++) end = t.indexOf(10, end) + 1;
const text = t.subarray(0, end);
mkdirSync("/tmp/prof/warm", { recursive: true });
writeFileSync("/tmp/prof/warm/0000.tsv", text);
writeFileSync("/tmp/prof/warm/prev.tsv", readFileSync(base + id + "/keys/0001.tsv").subarray(0, end));
const l = indexLines(text);
const tab = Buffer.alloc(l.count * 8);
for (let k = 0; k < l.count; k++) { tab.writeInt32LE(l.hash[k]!, k * 8); tab.writeInt32LE((k + 1 < l.count ? l.start[k + 1]! : text.length) - l.start[k]!, k * 8 + 4); }
writeFileSync("/tmp/prof/warm/0000.lines", tab);
console.log(l.count, text.length);
