import { z } from "zod";

/** One entry of the changes feed: a package changed (or was removed) at sequence `seq`. */
export const change = z.object({
  seq: z.number().int().min(1),
  id: z.string().min(1),
  deleted: z.boolean().optional(),
});

/**
 * A page of `GET /_changes?since=N&limit=M`. Both fields are required, so a body without them
 * fails the request; the documented empty answer is `{"results": [], "last_seq": N}`.
 */
export const changesPage = z.object({
  results: z.array(change),
  last_seq: z.number().int().min(0),
});

export type ChangesPage = z.output<typeof changesPage>;

/** A package document, `GET /<name>` (extra fields allowed and dropped). */
export const packageDocument = z.object({
  name: z.string().min(1),
  "dist-tags": z.object({ latest: z.string().min(1) }),
  versions: z.record(z.string(), z.object({ version: z.string() })),
  license: z.string().optional(),
  time: z.object({ modified: z.iso.datetime({ offset: true }) }),
});

export type PackageDocument = z.output<typeof packageDocument>;

/** The registry's documented answer for a package that does not exist (status 404). */
export const notFoundAnswer = z.object({ error: z.literal("not_found") });

/** The package as the pipeline hashes and keeps it. */
export interface RegistryPackage {
  name: string;
  latest: string;
  versions: string[];
  license: string | null;
  modified_at: string;
}

/** A stable shape: versions sorted, fetch-time noise (download counts, readmes) dropped. */
export function normalizePackage(doc: PackageDocument): RegistryPackage {
  return {
    name: doc.name,
    latest: doc["dist-tags"].latest,
    versions: Object.keys(doc.versions).sort(),
    license: doc.license ?? null,
    modified_at: new Date(doc.time.modified).toISOString(),
  };
}
