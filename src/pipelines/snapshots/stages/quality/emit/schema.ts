import { compareCodePoints } from "tidemark/kit";
import { normalizeHeader, type SupplierConfig } from "../../intake/config/supplier-config.ts";
import type { ReasonCode } from "../reason-codes/reason-code.ts";

/** One configured column, ready for the hot path. */
export interface CompiledColumn {
  /** Configured header name. */
  name: string;
  /** Payload field. */
  out: string;
  type: "string" | "integer" | "decimal" | "date";
  required: boolean;
  minorUnits: number;
  /** Accepted header labels, normalised. */
  labels: string[];
}

/** The supplier's columns in payload order (canonical JSON key order). */
export interface CompiledSchema {
  /** Sorted by payload field name, by code point, as canonical JSON sorts keys. */
  columns: CompiledColumn[];
  /** `{"a":` for the first, `,"b":` for the others. */
  prefixes: string[];
  /** Position of the key column in `columns`. */
  keyIndex: number;
  /** Normalised label of the category column, when categories come from a column. */
  categoryLabel: string | undefined;
  extraColumns: "ignore" | "fail";
}

/** Prepares the config's columns for the emitter. */
export function compileSchema(cfg: SupplierConfig): CompiledSchema {
  const columns: CompiledColumn[] = cfg.columns
    .map((c) => ({
      name: c.name,
      out: c.as ?? c.name,
      type: c.type,
      // The key identifies the row: it can never be empty.
      required: c.required || c.name === cfg.key || c.as === cfg.key,
      minorUnits: c.type === "decimal" ? (c.minor_units ?? 2) : 0,
      labels: [...new Set([c.name, ...c.aliases].map(normalizeHeader))],
    }))
    .sort((a, b) => compareCodePoints(a.out, b.out));
  return {
    columns,
    prefixes: columns.map((c, i) => `${i === 0 ? "{" : ","}${JSON.stringify(c.out)}:`),
    keyIndex: columns.findIndex((c) => c.name === cfg.key || c.out === cfg.key),
    categoryLabel:
      cfg.categories?.from === "column" ? normalizeHeader(cfg.categories.column) : undefined,
    extraColumns: cfg.extra_columns,
  };
}

/** Where each column sits in a header. */
export interface HeaderMap {
  /** Header position per schema column (schema order), -1 when absent (optional column). */
  positions: Int32Array;
  /** Header position of the category column, -1 when none. */
  category: number;
  /** Number of header cells (CSV records must have this many fields). */
  width: number;
}

/** The header fails the gate: reason and a one-line explanation. */
export class GateFailure extends Error {
  constructor(
    readonly reason: ReasonCode,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = "GateFailure";
  }
}

/**
 * Maps a header row onto the schema (schema check): required columns must be present,
 * no configured column may appear twice, and with extra_columns `fail` nothing else may appear.
 */
export function mapHeader(
  schema: CompiledSchema,
  cells: readonly unknown[],
  where = "",
): HeaderMap {
  const labels = cells.map((c) =>
    c === null || c === undefined ? "" : normalizeHeader(String(c)),
  );
  const at = where ? ` in ${where}` : "";
  if (labels.every((l) => l === "")) throw new GateFailure("HEADER_MISMATCH", `no header row${at}`);
  const used = new Set<number>();
  const find = (name: string, accepted: readonly string[]): number => {
    const hits: number[] = [];
    labels.forEach((l, i) => {
      if (accepted.includes(l)) hits.push(i);
    });
    if (hits.length > 1) {
      throw new GateFailure("HEADER_MISMATCH", `column ${name} appears ${hits.length} times${at}`);
    }
    if (hits[0] !== undefined) used.add(hits[0]);
    return hits[0] ?? -1;
  };
  const positions = new Int32Array(schema.columns.length);
  const missing: string[] = [];
  schema.columns.forEach((col, i) => {
    positions[i] = find(col.name, col.labels);
    if (positions[i] === -1 && col.required) missing.push(col.name);
  });
  let category = -1;
  if (schema.categoryLabel !== undefined) {
    category = find(schema.categoryLabel, [schema.categoryLabel]);
    if (category === -1) missing.push(`${schema.categoryLabel} (category)`);
  }
  if (missing.length > 0) {
    const seen = labels.filter((l) => l !== "").join(", ");
    throw new GateFailure(
      "REQUIRED_COLUMNS_MISSING",
      `missing ${missing.join(", ")}${at}; header has: ${seen.length > 200 ? `${seen.slice(0, 200)}…` : seen}`,
    );
  }
  if (schema.extraColumns === "fail") {
    const extra = labels.filter((l, i) => l !== "" && !used.has(i));
    if (extra.length > 0) {
      throw new GateFailure("HEADER_MISMATCH", `unexpected column(s) ${extra.join(", ")}${at}`);
    }
  }
  return { positions, category, width: cells.length };
}
