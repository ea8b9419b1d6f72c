/**
 * The directory tree of docs/pipelines/snapshots.md (Layout), as `/`-separated keys relative to the root
 * (`etl_data/raw_v1`). Both storages (file system, object store) use these keys, so the tree is
 * defined once. Supplier names are validated before they reach here.
 */

/** Where a supplier drops its files. */
export const inboxDir = (supplier: string) => `inbox/${supplier}`;

/** Sub-folders that files leave the inbox to. */
export type Destination = "duplicates" | "broken" | "obsolete" | "accepted";

/** quarantine/<s>/duplicates|broken, archive/<s>/obsolete|accepted. */
export function destinationDir(supplier: string, to: Destination): string {
  return to === "duplicates" || to === "broken"
    ? `quarantine/${supplier}/${to}`
    : `archive/${supplier}/${to}`;
}

/** accepted_runs/<supplier>/<sha_prefix2>/<sha256>.json. */
export const acceptedKey = (supplier: string, sha256: string) =>
  `accepted_runs/${supplier}/${sha256.slice(0, 2)}/${sha256}.json`;

/** runs/<run_id>. */
export const runDir = (runId: string) => `runs/${runId}`;

/** The run artifact file names. */
export const RUN_FILES = {
  facts: "facts.ndjson",
  bad: "bad.ndjson",
  stats: "stats.json",
  manifest: "manifest.json",
} as const;

/** state_store/<supplier>/<run_id>. */
export const stateDir = (supplier: string, runId: string) => `state_store/${supplier}/${runId}`;

/** Files of one immutable state: the facts, its publication record and its key index. */
export const STATE_FILES = {
  facts: "facts.ndjson",
  publication: "publication.json",
  keysDir: "keys",
} as const;

/** The key-index partition file of a state. */
export const keyBucketName = (bucket: number) => `${String(bucket).padStart(4, "0")}.tsv`;

/** state/current/<supplier> (POSIX symlink) and state/current/<supplier>.json (object pointer). */
export const currentLink = (supplier: string) => `state/current/${supplier}`;
/** The pointer object of a supplier on object storage. */
export const currentPointer = (supplier: string) => `state/current/${supplier}.json`;
