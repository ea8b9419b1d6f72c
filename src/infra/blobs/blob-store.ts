import { hash } from "node:crypto";
import type { Readable } from "node:stream";

/** What the store knows about one saved object. */
export interface BlobInfo {
  key: string;
  /** Content fingerprint: quoted MD5 hex on both drivers, as S3 reports it for simple puts. */
  etag: string;
  /** When the object was saved (ISO-8601 UTC). */
  savedAt: string;
  size: number;
}

/** Bytes, a string (UTF-8) or a stream of bytes. */
export type BlobBody = Uint8Array | string | Readable | AsyncIterable<Uint8Array>;

/** An object's UTF-8 text with the SHA-256 (hex) of its bytes as stored. */
export interface TextAndDigest {
  text: string;
  sha256: string;
}

/** The TextAndDigest of bytes read whole (the fs store's worker computes the same on its thread). */
export function textAndDigestOf(bytes: Buffer): TextAndDigest {
  return { text: bytes.toString("utf8"), sha256: hash("sha256", bytes, "hex") };
}

/**
 * Object storage for immutable raw payloads and artifacts. Keys are `/`-separated relative
 * paths; `..` segments, absolute paths, backslashes and NUL are refused.
 */
export interface BlobStore {
  /** Driver name: `fs` or `s3`. */
  readonly driver: "fs" | "s3";
  put(key: string, body: BlobBody, options?: { contentType?: string }): Promise<BlobInfo>;
  /** Whole object; throws BlobNotFoundError if absent. */
  get(key: string): Promise<Buffer>;
  /**
   * Whole object decoded as UTF-8, with the SHA-256 (hex) of its bytes as stored, so a caller can
   * check a content-addressed object without hashing it again; throws BlobNotFoundError if absent.
   */
  getTextAndDigest(key: string): Promise<TextAndDigest>;
  /** Streamed object; throws BlobNotFoundError if absent. */
  getStream(key: string): Promise<Readable>;
  /** Metadata, or undefined if absent. */
  head(key: string): Promise<BlobInfo | undefined>;
  exists(key: string): Promise<boolean>;
  /** Every object whose key starts with prefix, in key order. */
  list(prefix?: string): AsyncIterable<BlobInfo>;
  /** Removes the object; deleting an absent key is not an error. */
  delete(key: string): Promise<void>;
}

/** The requested key does not exist. */
export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    this.name = "BlobNotFoundError";
  }
}

/** The key is not a safe relative object key. */
export class InvalidBlobKeyError extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = "InvalidBlobKeyError";
  }
}
