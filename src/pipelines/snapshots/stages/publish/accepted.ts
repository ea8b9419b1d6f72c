import { acceptedKey } from "../intake/layout/tree.ts";
import type { SnapshotStorage } from "./storage/snapshot-storage.ts";

/** An accepted_runs record as written by writeAccepted. */
export interface AcceptedRecord {
  run_id: string;
  accepted_at: string;
  input_filename: string;
  manifest_path: string;
  supplier?: string;
  input_sha256?: string;
  state_path?: string;
}

/** The accepted record for a file's SHA-256, if the file was ever published. */
export async function readAccepted(
  storage: SnapshotStorage,
  supplier: string,
  sha256: string,
): Promise<AcceptedRecord | undefined> {
  const text = await storage.readText(acceptedKey(supplier, sha256));
  return text === undefined ? undefined : (JSON.parse(text) as AcceptedRecord);
}

/** The run that published this content, if any. */
export async function publishedRunOf(
  storage: SnapshotStorage,
  supplier: string,
  sha256: string,
): Promise<string | undefined> {
  return (await readAccepted(storage, supplier, sha256))?.run_id;
}
