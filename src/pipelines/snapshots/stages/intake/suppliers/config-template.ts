/** The DQ keys a supplier config must have (`snapshots supplier add` writes them all). */
export interface DqValues {
  min_fact_count: number;
  max_bad_ratio: number;
  allow_empty_snapshot: boolean;
}

/** What `supplier add` writes when no `--dq-…` option says otherwise (documented). */
export const DQ_DEFAULTS: DqValues = {
  min_fact_count: 1,
  max_bad_ratio: 0.1,
  allow_empty_snapshot: false,
};

/** Choices of the written file beyond the DQ keys. */
export interface TemplateOptions {
  /** The supplier uploads `*.tmp` and renames (the fake does). */
  atomicRename?: boolean;
  /** A column holding each row's category (facts then carry `category_key`). */
  categoryColumn?: string;
}

/**
 * A supplier config with every key shown, commented, ready to edit: the DQ values given, the
 * defaults for the rest, and example columns (sku, qty, price, name) to adjust to the files.
 */
export function supplierConfigTemplate(
  supplier: string,
  dq: DqValues,
  options: TemplateOptions = {},
): string {
  const categories = options.categoryColumn
    ? `categories: { from: column, column: ${options.categoryColumn} } # or { from: sheet }: one category per XLSX sheet`
    : "# categories: { from: column, column: category } # or { from: sheet }: one category per XLSX sheet";
  return `# Supplier ${supplier}: the data-quality rules and the file contract of its full-snapshot files.
# Every key is shown with its value; edit the columns to match the supplier's header.

# Data quality (required). A run that misses one FAILs, quarantines the file, publishes nothing.
min_fact_count: ${dq.min_fact_count} # fewer good rows than this: FAIL DQ_MIN_FACT_COUNT
max_bad_ratio: ${dq.max_bad_ratio} # bad rows / all rows above this: FAIL DQ_BAD_RATIO_EXCEEDED
allow_empty_snapshot: ${dq.allow_empty_snapshot} # true: a file without rows publishes an empty state

# The file
format: auto # csv | xlsx | auto (decided by the content, never by the name)
encoding: utf-8 # any iconv-lite encoding, e.g. windows-1251; a BOM wins
delimiter: "," # CSV: one character ("\\t" for TSV)
quote: '"'
extra_columns: ignore # fail: a header column not listed below is HEADER_MISMATCH

# Rows: \`key\` identifies a row (a column's name or its \`as\`); header labels match loosely.
key: sku
columns:
  - { name: sku, type: string, required: true }
  - { name: qty, type: integer, required: true }
  - { name: price, type: decimal, minor_units: 2, as: price_minor, required: true }
  - { name: name, type: string, aliases: [title] }
${categories}

# The inbox
file_stability_window: 30 # seconds without modification before a file is read
atomic_rename: ${options.atomicRename ?? false} # true: the supplier uploads *.tmp and renames when done

# Retention and alerts
state_retention_hours: 12 # a replaced state is kept this long after the switch
retention:
  quarantine_days: 30
  archive_days: 30
  runs_days: 30
  diag_days: 7 # 3 to 7
  accepted_runs_days: 365 # 180 to 365
alerts:
  consecutive_fails: 3
  identical_sha_streak: 3
  # max_state_age_hours: 26 # alert when the published state is older (off when absent)
`;
}
