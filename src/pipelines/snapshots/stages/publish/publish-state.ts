import { copyFile, link, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { crashPoint } from "../ingest/crash-hook.ts";
import { acceptedKey, STATE_FILES, stateDir } from "../intake/layout/tree.ts";
import { acceptedRecord, documentText } from "./run-documents.ts";
import type {
  SnapshotStorage,
  StatePointer,
  StatePublication,
} from "./storage/snapshot-storage.ts";

/** Hard link (no copy, same bytes written once) or, where links are impossible, a copy. */
async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to);
  }
}

/**
 * Publication of a PASS, in crash-safe order:
 * 1. state_store/<s>/<run_id>/ is written once and sealed (facts, key index, publication.json);
 * 2. current is switched atomically (symlink rename / pointer object) — the commit point,
 *    fenced by the run's lease;
 * 3. the accepted_runs record is written.
 * A crash before 2 leaves the previous state published and an orphan the next run removes;
 * a crash between 2 and 3 is repaired by the next run's recovery from publication.json, so the
 * same file can never PASS twice.
 */
export async function publishState(p: {
  storage: SnapshotStorage;
  workDir: string;
  factsFile: string;
  keysDir: string;
  publication: StatePublication;
  now: () => Date;
  /** The fenced commit of the switch (see IngestDeps.commit). */
  commit?: <T>(effect: () => Promise<T>) => Promise<T>;
}): Promise<StatePointer> {
  const { storage, publication } = p;
  const local = path.join(p.workDir, ".state");
  await rm(local, { recursive: true, force: true });
  await mkdir(local);
  await linkOrCopy(p.factsFile, path.join(local, STATE_FILES.facts));
  await rename(p.keysDir, path.join(local, STATE_FILES.keysDir));
  await writeFile(path.join(local, STATE_FILES.publication), documentText(publication));
  await storage.createState(publication.supplier, publication.run_id, local);
  crashPoint("state-written");
  const commit = p.commit ?? ((effect) => effect());
  // The switch is fenced: it happens only while this run still holds the supplier's lease,
  // and nobody can take the lease over until it is done.
  return commit(async () => {
    const pointer: StatePointer = {
      ...publication,
      published_at: p.now().toISOString(),
      state_path: stateDir(publication.supplier, publication.run_id),
    };
    await storage.switchCurrent(publication.supplier, pointer);
    crashPoint("after-switch");
    await writeAccepted(storage, pointer);
    crashPoint("after-accepted");
    return pointer;
  });
}

/** Writes the accepted_runs record of a published state. */
export async function writeAccepted(
  storage: SnapshotStorage,
  pointer: StatePointer,
): Promise<void> {
  await storage.writeText(
    acceptedKey(pointer.supplier, pointer.input_sha256),
    documentText(acceptedRecord(pointer)),
  );
}
