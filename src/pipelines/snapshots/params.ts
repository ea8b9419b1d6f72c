import { z } from "zod";
import { SUPPLIER_NAME } from "./stages/intake/layout/supplier-name.ts";

/** Params of a `snapshots.ingest` job: the supplier whose inbox it ingests. */
export const ingestParams = z
  .object({
    supplier: z
      .string()
      .regex(SUPPLIER_NAME, "letters, digits, '-' and '_' only, starting with a letter or digit"),
  })
  .strict();

/** Validated `snapshots.ingest` params. */
export type IngestParams = z.output<typeof ingestParams>;

/** Lease key of a supplier: one run per supplier at a time. */
export const supplierLeaseKey = (supplier: string) => `snapshots:${supplier}`;
