import { mkdirSync, mkdtempSync, rmSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSupplierConfig } from "../../../src/pipelines/snapshots/stages/intake/config/load-supplier-config.ts";
import {
  dropEarlyThreads,
  threadsForRun,
  warmBeforeRun,
} from "../../../src/pipelines/snapshots/stages/parse/early-threads.ts";
import { FsSnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/fs-storage.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const CONFIG = `min_fact_count: 1
max_bad_ratio: 0.1
allow_empty_snapshot: false
key: sku
file_stability_window: 0
columns:
  - { name: sku, required: true }
`;

/**
 * A data root with the supplier's config and, in its inbox, files of the given sizes, each a
 * minute older than the next (the last is the newest).
 */
function root(config: string | undefined, files: Record<string, number>) {
  const dir = mkdtempSync(path.join(tmpdir(), "tm-early-"));
  dirs.push(dir);
  const configDir = path.join(dir, "config");
  mkdirSync(configDir);
  if (config !== undefined) writeFileSync(path.join(configDir, "acme.yaml"), config);
  mkdirSync(path.join(dir, "inbox", "acme"), { recursive: true });
  let age = 60 * (Object.keys(files).length + 1);
  for (const [name, size] of Object.entries(files)) {
    // Sparse: only its size is read before the run.
    const file = path.join(dir, "inbox", "acme", name);
    writeFileSync(file, "");
    truncateSync(file, size);
    age -= 60;
    utimesSync(file, Date.now() / 1000 - age, Date.now() / 1000 - age);
  }
  return { configDir, storage: new FsSnapshotStorage(dir, false) };
}

const warm = (r: ReturnType<typeof root>, o: { workers?: number; cores?: number } = {}) =>
  warmBeforeRun({
    ...r,
    supplier: "acme",
    workers: o.workers ?? 2,
    cores: o.cores ?? 2,
    now: new Date(),
  });

describe("parse threads started before the run opens", () => {
  it("on two cores: one while the run opens, a second beside the hash; the run takes them once", async () => {
    const r = root(CONFIG, { "z-old.csv": 1 << 20, "new.csv": 8 << 20 });
    await warm(r);
    const threads = threadsForRun("acme", 2);
    expect(threads.csv.idle).toBe(1);
    // Nothing is left for a later run of the supplier.
    const later = threadsForRun("acme", 2);
    expect(later.idle).toBe(0);
    // The selection's call: one more thread, beside the hash.
    const loaded = loadSupplierConfig(r.configDir, "acme");
    if (!loaded.ok) throw new Error(loaded.detail);
    threads.warmFor(loaded.config, {
      key: "inbox/acme/new.csv",
      name: "new.csv",
      size: 8 << 20,
      mtimeMs: 0,
    });
    expect(threads.csv.idle).toBe(2);
    await threads.close();
    expect(threads.idle).toBe(0);
  });

  it("a run that never took them (locked, failed before its parse) has them stopped", async () => {
    const r = root(CONFIG, { "new.csv": 8 << 20 });
    await warm(r);
    await dropEarlyThreads("acme");
    expect(threadsForRun("acme", 2).idle).toBe(0);
  });

  it("none without a config, for a small or unsettled newest file, on one core or with workers: 0", async () => {
    const cases: Array<[ReturnType<typeof root>, { workers?: number; cores?: number }]> = [
      [root(undefined, { "new.csv": 8 << 20 }), {}],
      [root(CONFIG, { "new.csv": 1 << 20 }), {}],
      [
        root(CONFIG.replace("file_stability_window: 0", "file_stability_window: 3600"), {
          "new.csv": 8 << 20,
        }),
        {},
      ],
      [root(CONFIG, { "new.csv": 8 << 20 }), { cores: 1 }],
      [root(CONFIG, { "new.csv": 8 << 20 }), { workers: 0 }],
      [root(CONFIG, {}), {}],
    ];
    for (const [r, o] of cases) {
      await warm(r, o);
      expect(threadsForRun("acme", 2).idle).toBe(0);
    }
  });
});
