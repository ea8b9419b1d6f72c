import type { BlobStore } from "tidemark/kit";
import type { SnapshotSettings } from "../../../settings.ts";
import { FsSnapshotStorage } from "./fs-storage.ts";
import { ObjectSnapshotStorage } from "./object-storage.ts";
import type { SnapshotStorage } from "./snapshot-storage.ts";

/** The storage the settings ask for: a folder tree, or the configured blob store under a prefix. */
export function openStorage(settings: SnapshotSettings, blobs: BlobStore): SnapshotStorage {
  return settings.storage === "s3"
    ? new ObjectSnapshotStorage(blobs, settings.root, settings.workDir)
    : new FsSnapshotStorage(settings.root, settings.fsync);
}
