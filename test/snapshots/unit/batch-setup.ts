/**
 * A CSV batch processor's setup for a supplier config, and the reference its output must equal:
 * the same body through CsvRecordParser and RowEmitter (the text path, one hash per row).
 */

import {
  type SupplierConfig,
  supplierConfigSchema,
} from "../../../src/pipelines/snapshots/stages/intake/config/supplier-config.ts";
import { CsvRecordParser } from "../../../src/pipelines/snapshots/stages/parse/extract/csv-records.ts";
import {
  GrowableBytes,
  MemoryKeyIndex,
} from "../../../src/pipelines/snapshots/stages/publish/artifacts/memory-sinks.ts";
import { RowEmitter } from "../../../src/pipelines/snapshots/stages/quality/emit/row-emitter.ts";
import {
  type CompiledSchema,
  compileSchema,
  mapHeader,
} from "../../../src/pipelines/snapshots/stages/quality/emit/schema.ts";

/** A lenient supplier config keyed by `sku`, its category in column `cat`. */
export function configWith(columns: Array<Record<string, unknown>>): SupplierConfig {
  return supplierConfigSchema.parse({
    min_fact_count: 1,
    max_bad_ratio: 1,
    allow_empty_snapshot: true,
    key: "sku",
    categories: { from: "column", column: "cat" },
    columns,
  });
}

/** The setup of a multi-category processor (16 buckets) reading `columns` in this order. */
export function batchSetup(cfg: SupplierConfig, columns: string[]) {
  const schema: CompiledSchema = compileSchema(cfg);
  return {
    schema,
    header: mapHeader(schema, columns),
    runId: "acme_20260101T000000Z_abcdef",
    supplier: "acme",
    multiCategory: true,
    checkSurrogates: false,
    encoding: "utf-8",
    delimiter: ",",
    quote: '"',
    buckets: 16,
  };
}

/** The text path's facts, bad lines, key lines and counts for a body (first line 2). */
export function textPath(setup: ReturnType<typeof batchSetup>, body: string) {
  const facts = new GrowableBytes();
  const bad = new GrowableBytes();
  const keys = new MemoryKeyIndex(16);
  const rows = new RowEmitter(setup.schema, { ...setup, facts, bad, keys });
  rows.begin(setup.header, undefined, true);
  const p = new CsvRecordParser(",", '"', (f, line, m) => rows.row(f, line, m));
  p.setLine(2);
  p.push(body);
  p.end();
  const text = (b: Uint8Array) => Buffer.from(b).toString();
  return {
    facts: text(facts.take()),
    bad: text(bad.take()),
    keys: keys.take().map(text),
    counts: rows.takeCounts(),
  };
}
