import { z } from "zod";

/** One record as the API sends it (extra fields are allowed and dropped by `normalize`). */
export const apiRecord = z.object({
  id: z.string().min(1),
  title: z.string(),
  status: z.string(),
  updated_at: z.iso.datetime({ offset: true }),
});

export type ApiRecord = z.output<typeof apiRecord>;

/**
 * A page of `GET /v1/records`. Both fields are required: a body without them (a proxy's `{}`,
 * an error page) fails the request instead of reading as the last page. The documented empty
 * answer is `{"records": [], "next_page_token": null}`.
 */
export const recordsPage = z.object({
  records: z.array(apiRecord),
  next_page_token: z.string().min(1).nullable(),
});

export type RecordsPage = z.output<typeof recordsPage>;

/** The record the pipeline hashes and stores: only what it keeps, in a fixed shape. */
export interface StarterKitRecord {
  id: string;
  title: string;
  status: string;
  updated_at: string;
}

/** Drops fetch-time noise so that an unchanged record hashes the same on every run. */
export function normalizeRecord(r: ApiRecord): StarterKitRecord {
  return {
    id: r.id,
    title: r.title.trim(),
    status: r.status,
    updated_at: new Date(r.updated_at).toISOString(),
  };
}
