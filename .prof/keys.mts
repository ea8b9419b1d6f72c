import { readFileSync, readdirSync } from "node:fs";
import { indexLines, IdentityTable } from "../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
import { runGroup, groupsOf } from "../src/pipelines/snapshots/stages/publish/artifacts/key-diff-group.ts";
const base = "/tmp/prof/trial/etl_data/raw_v1/state_store/bench/";
const [prevId, newId] = readdirSync(base).sort();
const pdir = base + prevId + "/keys/", ndir = base + newId + "/keys/";
const B = 16;
const now = () => performance.now();
for (let rep = 0; rep < 5; rep++) {
  let tRead = 0, tIdxP = 0, tIdxN = 0, tTab = 0, tDiff = 0, tGroup = 0;
  for (let b = 0; b < B; b++) {
    const f = `${String(b).padStart(4, "0")}.tsv`;
    let t = now();
    const p = readFileSync(pdir + f); const n = readFileSync(ndir + f);
    tRead += now() - t; t = now();
    const pl = indexLines(p); tIdxP += now() - t; t = now();
    const nl = indexLines(n); tIdxN += now() - t; t = now();
    const tab = new IdentityTable(nl); for (let k = 0; k < nl.count; k++) tab.add(k); tTab += now() - t; t = now();
    let found = 0;
    for (let j = 0; j < pl.count; j++) if (tab.find(pl.text, pl.idStart[j]!, pl.idEnd[j]!, pl.hash[j]!) >= 0) found++;
    tDiff += now() - t;
  }
  let t = now();
  for (const g of groupsOf(B, B)) runGroup({ dir: ndir, buckets: B, previousBuckets: B }, g, g.previousBuckets.map((q) => readFileSync(pdir + `${String(q).padStart(4, "0")}.tsv`)));
  tGroup = now() - t;
  console.log(`read ${tRead.toFixed(0)} idxPrev ${tIdxP.toFixed(0)} idxNew ${tIdxN.toFixed(0)} table ${tTab.toFixed(0)} diff ${tDiff.toFixed(0)} | runGroup all ${tGroup.toFixed(0)}`);
}
