import { z } from "zod";
import { encodingSupported } from "../../parse/input/text-decoder.ts";

/** A header label compared loosely: trimmed, lower-cased, inner whitespace collapsed. */
export function normalizeHeader(label: string): string {
  return label
    .replace(/^\uFEFF/, "")
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase();
}

const columnSchema = z
  .object({
    /** Header label (and payload field unless `as` is given). */
    name: z.string().min(1),
    type: z.enum(["string", "integer", "decimal", "date"]).default("string"),
    required: z.boolean().default(false),
    /** Other header labels accepted for this column. */
    aliases: z.array(z.string().min(1)).default([]),
    /** Payload field name, e.g. `price_minor`. */
    as: z.string().min(1).optional(),
    /** Decimal columns: digits after the point kept as integer minor units (default 2). */
    minor_units: z.number().int().min(0).max(9).optional(),
  })
  .strict();

const categoriesSchema = z.discriminatedUnion("from", [
  z
    .object({
      from: z.literal("sheet"),
      /** Sheet name → category_key; without it every visible sheet is a category named after it. */
      sheets: z.record(z.string().min(1), z.string().min(1)).optional(),
      /** A sheet not in `sheets`: FAIL the file (default) or skip the sheet. */
      unknown_sheets: z.enum(["fail", "ignore"]).default("fail"),
    })
    .strict(),
  z.object({ from: z.literal("column"), column: z.string().min(1) }).strict(),
]);

const retentionSchema = z
  .object({
    quarantine_days: z.number().int().min(1).default(30),
    archive_days: z.number().int().min(1).default(30),
    runs_days: z.number().int().min(1).default(30),
    /** runs/<run_id>/diag/ (3–7 days). */
    diag_days: z.number().int().min(3).max(7).default(7),
    /** accepted_runs (180–365 days). */
    accepted_runs_days: z.number().int().min(180).max(365).default(365),
  })
  .strict();

const alertsSchema = z
  .object({
    /** Alert after this many FAIL runs in a row (repeated FAIL). */
    consecutive_fails: z.number().int().min(1).default(3),
    /** Alert when the same SHA-256 arrived this many times in a row (drift). */
    identical_sha_streak: z.number().int().min(2).default(3),
    /** Alert when the published state is older than this (age); off when absent. */
    max_state_age_hours: z.number().positive().optional(),
  })
  .strict();

/** etl_ops/config/<supplier>.yaml: the three mandatory DQ keys plus the file contract the gate checks. */
export const supplierConfigSchema = z
  .object({
    min_fact_count: z.number().int().min(0),
    max_bad_ratio: z.number().min(0).max(1),
    allow_empty_snapshot: z.boolean(),
    format: z.enum(["csv", "xlsx", "auto"]).default("auto"),
    encoding: z
      .string()
      .min(1)
      .default("utf-8")
      .refine(encodingSupported, { message: "unknown encoding (see iconv-lite's list)" }),
    delimiter: z.string().length(1).default(","),
    quote: z.string().length(1).default('"'),
    /** The column (name or `as`) identifying a row within its category, e.g. `sku`. */
    key: z.string().min(1),
    columns: z.array(columnSchema).min(1),
    categories: categoriesSchema.optional(),
    /** Header columns not in `columns`: ignore (default) or FAIL with HEADER_MISMATCH. */
    extra_columns: z.enum(["ignore", "fail"]).default("ignore"),
    /** Seconds a file's size must be unchanged before it is read. */
    file_stability_window: z.number().min(0).default(30),
    /** The supplier uploads as *.tmp and renames: any other file is complete at once. */
    atomic_rename: z.boolean().default(false),
    /** Hours a replaced state is kept after current switched away from it. */
    state_retention_hours: z.number().positive().default(12),
    retention: retentionSchema.default(retentionSchema.parse({})),
    alerts: alertsSchema.default(alertsSchema.parse({})),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const outputs = new Set<string>();
    const labels = new Map<string, string>();
    cfg.columns.forEach((col, i) => {
      const out = col.as ?? col.name;
      if (outputs.has(out)) {
        ctx.addIssue({ code: "custom", path: ["columns", i], message: `field ${out} twice` });
      }
      outputs.add(out);
      if (col.minor_units !== undefined && col.type !== "decimal") {
        ctx.addIssue({
          code: "custom",
          path: ["columns", i, "minor_units"],
          message: "minor_units is only for decimal columns",
        });
      }
      for (const label of [col.name, ...col.aliases]) {
        const norm = normalizeHeader(label);
        const other = labels.get(norm);
        if (other !== undefined && other !== col.name) {
          ctx.addIssue({
            code: "custom",
            path: ["columns", i],
            message: `header label ${JSON.stringify(label)} is also used by column ${other}`,
          });
        }
        labels.set(norm, col.name);
      }
    });
    if (!cfg.columns.some((c) => c.name === cfg.key || c.as === cfg.key)) {
      ctx.addIssue({ code: "custom", path: ["key"], message: "must name one of the columns" });
    }
    if (cfg.categories?.from === "sheet" && cfg.categories.sheets) {
      const keys = Object.values(cfg.categories.sheets);
      if (new Set(keys).size !== keys.length) {
        ctx.addIssue({
          code: "custom",
          path: ["categories", "sheets"],
          message: "each sheet needs its own category_key",
        });
      }
    }
    if (cfg.categories?.from === "sheet" && cfg.format === "csv") {
      ctx.addIssue({
        code: "custom",
        path: ["categories", "from"],
        message: "categories from sheets need format xlsx or auto",
      });
    }
  });

/** A validated supplier config, defaults applied. */
export type SupplierConfig = z.output<typeof supplierConfigSchema>;
/** One configured column. */
export type ColumnConfig = SupplierConfig["columns"][number];

/** The three mandatory DQ keys; any of them missing is CONFIG_DQ_MISSING. */
export const DQ_KEYS = ["min_fact_count", "max_bad_ratio", "allow_empty_snapshot"] as const;
