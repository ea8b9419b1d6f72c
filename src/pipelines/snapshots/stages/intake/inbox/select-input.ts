import { createHash } from "node:crypto";
import {
  type SnapshotStorage,
  type StorageEntry,
  StorageNotFoundError,
} from "../../publish/storage/snapshot-storage.ts";
import { acceptedKey, destinationDir, inboxDir } from "../layout/tree.ts";

/** A stable inbox file with its content hash. */
export interface HashedFile {
  entry: StorageEntry;
  sha256: string;
}

/** What the inbox step decided and did (unless planning only). */
export interface Selection {
  /** The newest unique stable file: the one this run processes. */
  chosen: HashedFile | undefined;
  /** Already accepted (or a copy of another file in this batch) → quarantine/<s>/duplicates/. */
  duplicates: Array<HashedFile & { movedTo: string | null }>;
  /** Unique but older than the chosen one → archive/<s>/obsolete/ (Replace State Model). */
  obsolete: Array<HashedFile & { movedTo: string | null }>;
  /** Size changed within file_stability_window: left alone until it settles. */
  unstable: string[];
  /** When each unstable file is taken if it stays unchanged (its mtime + the window). */
  settles?: Array<{ name: string; at: Date }>;
  /** `*.tmp` and dot-files: uploads in progress (atomic rename), never touched. */
  inFlight: string[];
}

/** Stability settings. */
export interface StabilityRule {
  /** Seconds without modification before a file counts as complete. */
  windowSeconds: number;
  /** Supplier uploads `*.tmp` and renames: any other name is complete at once. */
  atomicRename: boolean;
}

/** True for names of uploads in progress. */
export function isInFlightName(name: string): boolean {
  return name.startsWith(".") || name.toLowerCase().endsWith(".tmp");
}

/** The inbox's files sorted out by the stability rule, the stable ones newest first. */
export interface InboxFiles extends Pick<Selection, "unstable" | "settles" | "inFlight"> {
  /** By mtime, newest first (name descending on ties): the first is the one a run takes. */
  stable: StorageEntry[];
}

/** Sorts an inbox listing out: uploads in flight, files still settling, stable files. */
export function stableFiles(
  entries: readonly StorageEntry[],
  rule: StabilityRule,
  now: Date,
): InboxFiles {
  const files: InboxFiles = { stable: [], unstable: [], settles: [], inFlight: [] };
  for (const entry of entries) {
    if (isInFlightName(entry.name)) files.inFlight.push(entry.name);
    else if (!rule.atomicRename && now.getTime() - entry.mtimeMs < rule.windowSeconds * 1000) {
      files.unstable.push(entry.name);
      files.settles?.push({
        name: entry.name,
        at: new Date(entry.mtimeMs + rule.windowSeconds * 1000),
      });
    } else files.stable.push(entry);
  }
  files.stable.sort(
    (a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0),
  );
  return files;
}

/** SHA-256 hex of a stored file, streamed; undefined if it vanished meanwhile. */
export async function hashStored(
  storage: SnapshotStorage,
  key: string,
): Promise<string | undefined> {
  let chunks: AsyncIterable<Uint8Array>;
  try {
    // One reused buffer where the storage offers it: no megabyte of garbage per chunk.
    chunks = storage.openChunks
      ? (await storage.openChunks(key)).chunks
      : await storage.openRead(key);
  } catch (err) {
    if (err instanceof StorageNotFoundError) return undefined;
    throw err;
  }
  const hash = createHash("sha256");
  for await (const chunk of chunks) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * List the inbox, keep stable files, order by mtime desc (name desc on ties),
 * hash each; accepted SHAs are duplicates; the newest remaining file is chosen, other unique
 * files are obsolete. With `apply`, duplicates and obsolete files are moved out of the inbox.
 */
export async function selectInput(
  storage: SnapshotStorage,
  supplier: string,
  rule: StabilityRule,
  now: Date,
  apply: boolean,
  /** SHAs to treat as accepted besides accepted_runs (a dry run's pending recovery). */
  acceptedToo: ReadonlySet<string> = new Set(),
  /** Told the newest stable file before any is hashed (to prepare for its parse). */
  beforeHashing?: (newest: StorageEntry | undefined) => void,
): Promise<Selection> {
  const { stable, ...waiting } = stableFiles(
    await storage.listFiles(inboxDir(supplier)),
    rule,
    now,
  );
  const selection: Selection = { chosen: undefined, duplicates: [], obsolete: [], ...waiting };
  beforeHashing?.(stable[0]);
  const seen = new Set<string>();
  for (const entry of stable) {
    const sha256 = await hashStored(storage, entry.key);
    if (sha256 === undefined) continue;
    const accepted =
      acceptedToo.has(sha256) || (await storage.stat(acceptedKey(supplier, sha256))) !== undefined;
    const file = { entry, sha256, movedTo: null };
    if (accepted || seen.has(sha256)) selection.duplicates.push(file);
    else if (!selection.chosen) selection.chosen = { entry, sha256 };
    else selection.obsolete.push(file);
    seen.add(sha256);
  }
  if (apply) {
    for (const d of selection.duplicates) {
      d.movedTo = await moveIfPresent(storage, d.entry.key, destinationDir(supplier, "duplicates"));
    }
    for (const o of selection.obsolete) {
      o.movedTo = await moveIfPresent(storage, o.entry.key, destinationDir(supplier, "obsolete"));
    }
  }
  return selection;
}

/** Moves a file, tolerating that it vanished (another cleanup, a manual move). */
export async function moveIfPresent(
  storage: SnapshotStorage,
  key: string,
  toDir: string,
): Promise<string | null> {
  try {
    return await storage.move(key, toDir);
  } catch (err) {
    if (err instanceof StorageNotFoundError) return null;
    throw err;
  }
}
