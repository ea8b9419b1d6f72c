import type { BlobInfo, BlobStore } from "../../infra/blobs/blob-store.ts";
import { canonicalJsonAndHash } from "../hashing/content-hash.ts";
import { checkRawEnv } from "./raw-env-marker.ts";
import { hashOfRawKey, type RawKeyParts, rawKey, rawTargetPrefix } from "./raw-key.ts";

/** Where a normalized document lives and what the store said about it. */
export interface RawPutResult {
  key: string;
  contentHash: string;
  etag: string;
  /** When the object was saved (ISO-8601 UTC); for an object that existed, when it was first saved. */
  savedAt: string;
  /** False when the object already existed (same key, so same content): nothing was written. */
  created: boolean;
}

/** One stored version of a target, as `versions` lists them. */
export interface RawVersion extends BlobInfo {
  contentHash: string;
}

/**
 * Immutable raw documents on the engine's blob store, under key scheme A. Objects are written
 * once and never overwritten or deleted: a key names its content's SHA-256, so an existing key
 * already holds the same bytes. The `raw/` tree belongs to one env (a marker object), so a dev
 * run refuses to write where prod writes.
 */
export class RawStore {
  #claimed: Promise<void> | undefined;

  constructor(
    readonly blobs: BlobStore,
    /** The env this store writes for (`ctx.env`). */
    readonly env: string,
  ) {}

  /** Claims the raw location for this env, or throws RawEnvMismatchError; done once per store. */
  claimEnv(): Promise<void> {
    this.#claimed ??= checkRawEnv(this.blobs, this.env, true).catch((err: unknown) => {
      this.#claimed = undefined;
      throw err;
    });
    return this.#claimed;
  }

  /** Throws RawEnvMismatchError if another env owns the location; writes nothing. */
  checkEnv(): Promise<void> {
    return checkRawEnv(this.blobs, this.env, false);
  }

  /**
   * Saves a normalized document as canonical JSON under its key, unless that key exists.
   * `expectedHash` (the hash the caller compared) must match the bytes written.
   */
  async putDocument(
    target: Omit<RawKeyParts, "contentHash">,
    document: unknown,
    expectedHash?: string,
  ): Promise<RawPutResult> {
    const { text, hash } = canonicalJsonAndHash(document);
    if (expectedHash !== undefined && expectedHash !== hash) {
      throw new Error(
        `raw store: document of ${target.sourceId} hashes to ${hash}, not ${expectedHash}`,
      );
    }
    return this.putCanonical(target, text, hash);
  }

  /**
   * Saves canonical JSON text already made (with its SHA-256, from canonicalJsonAndHash) under
   * its key, unless that key exists: putDocument without encoding the document again.
   */
  async putCanonical(
    target: Omit<RawKeyParts, "contentHash">,
    text: string,
    contentHash: string,
  ): Promise<RawPutResult> {
    await this.claimEnv();
    const key = rawKey({ ...target, contentHash });
    const existing = await this.blobs.head(key);
    if (existing) {
      return { key, contentHash, etag: existing.etag, savedAt: existing.savedAt, created: false };
    }
    const info = await this.blobs.put(key, text, { contentType: "application/json" });
    return { key, contentHash, etag: info.etag, savedAt: info.savedAt, created: true };
  }

  /** The stored canonical JSON text of a raw key; BlobNotFoundError when absent. */
  async getText(key: string): Promise<string> {
    return (await this.blobs.get(key)).toString("utf8");
  }

  /**
   * The canonical JSON text of a raw key whose bytes' SHA-256 must be `contentHash` (the ledger's
   * hash); throws when it is not, so a damaged or replaced object is never applied.
   */
  async getVerifiedText(key: string, contentHash: string): Promise<string> {
    // The bytes are hashed as stored (no second UTF-8 encoding of the decoded text), by the blob
    // store: the fs store does it on its worker thread, off the re-apply's main thread.
    const { text, sha256 } = await this.blobs.getTextAndDigest(key);
    if (sha256 !== contentHash) {
      throw new Error(`raw object ${key} hashes to ${sha256}, not its ledger hash`);
    }
    return text;
  }

  /** Every stored version of one target, oldest first. */
  async versions(target: Omit<RawKeyParts, "contentHash">): Promise<RawVersion[]> {
    const out: RawVersion[] = [];
    for await (const info of this.blobs.list(rawTargetPrefix(target))) {
      const contentHash = hashOfRawKey(info.key);
      if (contentHash !== undefined) out.push({ ...info, contentHash });
    }
    return out.sort((a, b) => a.savedAt.localeCompare(b.savedAt) || a.key.localeCompare(b.key));
  }
}
