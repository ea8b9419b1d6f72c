import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  findReasonCodesFile,
  loadReasonCodes,
  parseReasonCodes,
} from "../../../src/pipelines/snapshots/stages/quality/reason-codes/load-reason-codes.ts";
import { REASON_CODES } from "../../../src/pipelines/snapshots/stages/quality/reason-codes/reason-code.ts";

describe("reason codes", () => {
  it("docs/etl/reason_codes.yaml defines every code the pipeline emits, with its stage", () => {
    const codes = loadReasonCodes();
    expect([...codes.keys()].sort()).toEqual([...REASON_CODES].sort());
    expect(codes.get("DQ_BAD_RATIO_EXCEEDED")?.stage).toBe("dq");
    expect(codes.get("INVALID_DECIMAL")?.stage).toBe("row");
  });

  it("a catalogue missing a code, or with a wrong stage, is refused", () => {
    const text = readFileSync(findReasonCodesFile(), "utf8");
    expect(() =>
      parseReasonCodes(text.replace(/ {2}DUPLICATE_KEY:/, "  DUPLICATE_KEYS:"), "x"),
    ).toThrow(/missing reason codes: DUPLICATE_KEY/);
    expect(() =>
      parseReasonCodes(
        text.replace("FILE_EMPTY:\n    stage: gate", "FILE_EMPTY:\n    stage: row"),
        "x",
      ),
    ).toThrow(/FILE_EMPTY: stage is row, expected gate/);
  });

  it("is found from the compiled layout too (dist/pipelines/snapshots/reason-codes/)", () => {
    const pkg = mkdtempSync(path.join(tmpdir(), "tm-pkg-"));
    onTestFinished(() => rmSync(pkg, { recursive: true, force: true }));
    const module = path.join(
      pkg,
      "dist",
      "pipelines",
      "snapshots",
      "reason-codes",
      "load-reason-codes.js",
    );
    mkdirSync(path.dirname(module), { recursive: true });
    cpSync(findReasonCodesFile(), path.join(pkg, "docs", "etl", "reason_codes.yaml"));
    expect(findReasonCodesFile(module)).toBe(path.join(pkg, "docs", "etl", "reason_codes.yaml"));
  });
});
