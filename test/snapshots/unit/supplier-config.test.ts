import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { UsageError } from "tidemark";
import { describe, expect, it, onTestFinished } from "vitest";
import { MINIMAL_CONFIG } from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { loadSupplierConfig } from "../../../src/pipelines/snapshots/stages/intake/config/load-supplier-config.ts";
import { checkSupplierName } from "../../../src/pipelines/snapshots/stages/intake/layout/supplier-name.ts";

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tm-snapcfg-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("supplier config", () => {
  it("the documented minimal YAML is accepted as written, with the documented defaults", () => {
    const r = loadSupplierConfig(dirWith({ "brinex.yaml": MINIMAL_CONFIG }), "brinex");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config).toMatchObject({
      min_fact_count: 1,
      max_bad_ratio: 0.1,
      allow_empty_snapshot: false,
      format: "csv",
      encoding: "utf-8",
      delimiter: ",",
      key: "sku",
      file_stability_window: 30,
      state_retention_hours: 12,
      atomic_rename: false,
      retention: { accepted_runs_days: 365, diag_days: 7 },
    });
    expect(r.config.columns[2]).toMatchObject({
      name: "price",
      type: "decimal",
      minor_units: 2,
      as: "price_minor",
    });
  });

  it("no file, or a file without a DQ key, is CONFIG_DQ_MISSING", () => {
    expect(loadSupplierConfig(dirWith({}), "brinex")).toMatchObject({
      ok: false,
      reason: "CONFIG_DQ_MISSING",
    });
    const noRatio = MINIMAL_CONFIG.replace("max_bad_ratio: 0.10\n", "");
    const r = loadSupplierConfig(dirWith({ "brinex.yaml": noRatio }), "brinex");
    expect(r).toMatchObject({ ok: false, reason: "CONFIG_DQ_MISSING" });
    expect(!r.ok && r.detail).toMatch(/max_bad_ratio/);
  });

  it("an invalid config is CONFIG_INVALID naming the key and value", () => {
    const cases: Array<[string, RegExp]> = [
      [MINIMAL_CONFIG.replace("format: csv", "format: xls"), /format/],
      [
        MINIMAL_CONFIG.replace("encoding: utf-8", "encoding: klingon"),
        /encoding: unknown encoding .*klingon/,
      ],
      [MINIMAL_CONFIG.replace("key: sku", "key: ean"), /key: must name one of the columns/],
      [`${MINIMAL_CONFIG}colour: blue\n`, /unknown key.*colour/],
      [MINIMAL_CONFIG.replace("max_bad_ratio: 0.10", "max_bad_ratio: 2"), /max_bad_ratio/],
      ["min_fact_count: [\n", /invalid YAML/],
    ];
    for (const [text, message] of cases) {
      const r = loadSupplierConfig(dirWith({ "s.yaml": text }), "s");
      expect(r, text).toMatchObject({ ok: false, reason: "CONFIG_INVALID" });
      expect(!r.ok && r.detail).toMatch(message);
    }
  });

  it("accepted_runs retention must stay within the documented 180–365 days", () => {
    const r = loadSupplierConfig(
      dirWith({ "s.yaml": `${MINIMAL_CONFIG}retention: { accepted_runs_days: 30 }\n` }),
      "s",
    );
    expect(r).toMatchObject({ ok: false, reason: "CONFIG_INVALID" });
  });

  it("supplier names cannot leave the root", () => {
    expect(checkSupplierName("brinex_eu-2")).toBe("brinex_eu-2");
    for (const bad of ["../x", "a/b", ".hidden", "", "a b", "брин"]) {
      expect(() => checkSupplierName(bad)).toThrow(UsageError);
    }
  });
});
