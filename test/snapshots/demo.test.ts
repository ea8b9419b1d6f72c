import { describe, expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { snapshotsPipeline } from "../../src/pipelines/snapshots/index.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

describe("tidemark demo (snapshots)", () => {
  it("shows a PASS, a duplicate, a gate FAIL, a full-snapshot diff, a multi-sheet XLSX and the status", async () => {
    const dir = testTempDir("tm-snapdemo-");
    const started = Date.now();
    const r = await runCli(["demo", "--only", "snapshots", "--data-dir", dir], {
      cwd: dir,
      registry: new Registry([snapshotsPipeline]),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    const out = r.stdout;
    expect(out).toMatch(/acme: PASS .*\n[\s\S]*\+40 added/);
    expect(out).toMatch(/acme: NO_INPUT[\s\S]*1 duplicate\(s\) → quarantine\/acme\/duplicates\//);
    expect(out).toMatch(/acme: FAIL REQUIRED_COLUMNS_MISSING/);
    expect(out).toMatch(
      /\+1 added, -5 removed \(keys no longer in the file: stock 0 now\), ~3 changed/,
    );
    // The counts go on a line of their own: the run id makes one line too wide for 80 columns.
    expect(out).toMatch(/^ {2}vs previous state acme_\S+:\n {4}\+1 added, -5 removed/m);
    expect(out).toMatch(/acme-xlsx: PASS[\s\S]*rows: 60/);
    expect(out).toMatch(/SUPPLIER\s+STATE\s+FACTS\s+LAST RUN/);
    expect(out).toMatch(/acme-xlsx\s+acme-xlsx_\S+\s+60\s+PASS/);
  });
});
