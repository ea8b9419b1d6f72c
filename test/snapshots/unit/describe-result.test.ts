import { describe, expect, it } from "vitest";
import { ingestJobType } from "../../../src/pipelines/snapshots/index.ts";
import { describeResult } from "../../../src/pipelines/snapshots/stages/ingest/describe-result.ts";
import type { IngestResult } from "../../../src/pipelines/snapshots/stages/ingest/types.ts";

const pass: IngestResult = {
  supplier: "acme",
  run_id: "acme_20260116T070000Z_a1b2c3",
  status: "PASS",
  reason_code: null,
  detail: null,
  input_filename: "stock.csv",
  input_sha256: "ab".repeat(32),
  total_rows: 37,
  good_rows: 36,
  bad_rows: 1,
  bad_ratio: 1 / 37,
  diff: {
    previous_run_id: "acme_20260115T070000Z_d4e5f6",
    added: 1,
    removed: 5,
    changed: 3,
    unchanged: 32,
  },
  state_path: "state_store/acme/acme_20260116T070000Z_a1b2c3",
  manifest_path: "runs/acme_20260116T070000Z_a1b2c3/manifest.json",
  input_moved_to: "archive/acme/accepted/stock.csv",
  inbox: { duplicates: [], obsolete: [], unstable: [], in_flight: [] },
  recovery: { interrupted: [], repaired: [], removedOrphans: [], removedLeftovers: [] },
};

describe("describeResult", () => {
  it("says what a removed key means instead of a bare (now 0)", () => {
    const text = describeResult(pass).join("\n");
    expect(text).toContain(
      "+1 added, -5 removed (keys no longer in the file: stock 0 now), ~3 changed, 32 unchanged",
    );
    expect(text).not.toContain("(now 0)");
    const none = describeResult({ ...pass, diff: { ...pass.diff!, removed: 0 } }).join("\n");
    expect(none).toContain("-0 removed, ~3 changed");
  });

  it("names what recovery removed after killed runs, with its size", () => {
    const recovery = {
      ...pass.recovery,
      interrupted: ["acme_20260116T060000Z_000001"],
      removedLeftovers: [
        {
          kind: "workdir" as const,
          key: "/scratch/acme_20260116T060000Z_000001",
          run_id: "acme_20260116T060000Z_000001",
          bytes: 3 * 1024 * 1024,
        },
        { kind: "partial" as const, key: "x/.f.0123456789abcdef.tmp", run_id: null, bytes: 512 },
      ],
    };
    expect(describeResult({ ...pass, recovery }).join("\n")).toContain(
      "removed what killed runs left: 1 work dir(s), 1 unfinished upload(s), 3.0 MiB",
    );
    // A summary recorded before the field existed still renders.
    const { removedLeftovers: _, ...old } = pass.recovery;
    expect(() => describeResult({ ...pass, recovery: old as typeof pass.recovery })).not.toThrow();
  });

  it("is what snapshots.ingest shows for `tidemark run` (summaryLines)", () => {
    const summary = pass as unknown as Record<string, unknown>;
    expect(ingestJobType.summaryLines?.(summary)).toEqual(describeResult(pass));
  });
});
