/** Row-level codes: one bad.ndjson line each. */
const ROW_REASON_CODES = [
  "REQUIRED_VALUE_MISSING",
  "INVALID_INTEGER",
  "INVALID_DECIMAL",
  "DECIMAL_PRECISION_EXCEEDED",
  "NUMBER_OUT_OF_RANGE",
  "INVALID_DATE",
  "INVALID_TEXT",
  "CELL_ERROR",
  "COLUMN_COUNT_MISMATCH",
  "MALFORMED_ROW",
  "CATEGORY_MISSING",
  "DUPLICATE_KEY",
] as const;

/**
 * Every reason code the snapshots pipeline can emit (codes come from
 * docs/etl/reason_codes.yaml, never free text). The YAML is the catalogue users read; this list
 * is what the code uses, and loading the YAML fails if any of these is missing from it.
 */
export const REASON_CODES = [
  // config: the supplier's contract
  "CONFIG_DQ_MISSING",
  "CONFIG_INVALID",
  // gate: the file as a whole
  "FILE_MISSING",
  "FILE_EMPTY",
  "FILE_UNREADABLE",
  "ENCODING_INVALID",
  "LINE_ENDING_LONE_CR",
  "FILE_CHANGED_DURING_READ",
  "FORMAT_UNRECOGNIZED",
  "HEADER_MISMATCH",
  "REQUIRED_COLUMNS_MISSING",
  "SHEET_MISSING",
  "SHEET_UNEXPECTED",
  // DQ: the snapshot as a whole
  "DQ_EMPTY_SNAPSHOT",
  "DQ_MIN_FACT_COUNT",
  "DQ_BAD_RATIO_EXCEEDED",
  ...ROW_REASON_CODES,
] as const;

/** One reason code. */
export type ReasonCode = (typeof REASON_CODES)[number];

/** Where in the ingestion a reason code is raised. */
export type ReasonStage = "config" | "gate" | "dq" | "row";

/** The stage each code belongs to; the YAML must agree. */
export function stageOf(code: ReasonCode): ReasonStage {
  if (code.startsWith("CONFIG_")) return "config";
  if (code.startsWith("DQ_")) return "dq";
  return ROW_CODES.has(code) ? "row" : "gate";
}

const ROW_CODES = new Set<ReasonCode>(ROW_REASON_CODES);
