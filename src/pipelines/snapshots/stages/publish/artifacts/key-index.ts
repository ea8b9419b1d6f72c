/**
 * The key index of a snapshot: one line per fact, `row_id16 \t row_number \t category_json \t
 * key_json` (row_id16: the first 16 hex digits of row_id, 64 bits, ample to tell a changed row),
 * hash-partitioned into a power-of-two number of bucket files by the
 * identity (category + key). Comparing two snapshots or finding duplicate keys then needs only
 * one bucket in memory at a time, so memory stays flat from 1M to 10M rows.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { keyBucketName } from "../../intake/layout/tree.ts";
import { ByteBatch, TRUNCATE_AND_APPEND, writeAllSync } from "./line-sink.ts";

/** Fewest key-index partitions. */
export const MIN_BUCKETS = 16;
/** Capped so every bucket file can stay open while writing. */
export const MAX_BUCKETS = 256;

/** Buckets for an input of this size: about 100k rows each (8 MB of CSV, 2 MB of XLSX). */
export function bucketsFor(inputBytes: number, format: "csv" | "xlsx"): number {
  const perBucket = format === "csv" ? 8 << 20 : 2 << 20;
  let n = MIN_BUCKETS;
  while (n < MAX_BUCKETS && n * perBucket < inputBytes) n *= 2;
  return n;
}

/** 32-bit FNV-1a over UTF-16 code units, continuing from h. */
export function fnv1a(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hash of an identity `category_json \t key_json` (the category part is "" when single). */
export function identityHash(identity: string): number {
  return fnv1a(identity);
}

/** One parsed index line. */
export interface IndexEntry {
  rowId: string;
  rowNumber: number;
  /** `category_json \t key_json`: the comparison key. */
  identity: string;
}

/** Hex digits of row_id kept in the key index. */
export const KEY_ROW_ID_CHARS = 16;

/** The index line of a fact (with its newline). */
export function indexLine(
  rowId: string,
  rowNumber: number,
  catJson: string,
  keyJson: string,
): string {
  return `${rowId.slice(0, KEY_ROW_ID_CHARS)}\t${rowNumber}\t${catJson}\t${keyJson}\n`;
}

/** Where an index line's identity starts: after the row id, the row number and their tabs. */
export const identityOffset = (rowNumberDigits: number) => KEY_ROW_ID_CHARS + 2 + rowNumberDigits;

/** identityHash of an identity given as its two parts (no string built for it). */
export function identityHashOf(catJson: string, keyJson: string): number {
  return fnv1a(keyJson, fnv1a("\t", fnv1a(catJson)));
}

/** The bucket of an identity given as its two parts. */
export function bucketOf(catJson: string, keyJson: string, buckets: number): number {
  return identityHashOf(catJson, keyJson) & (buckets - 1);
}

/** Splits an index line (without its newline). */
export function parseIndexLine(line: string): IndexEntry {
  const a = line.indexOf("\t");
  const b = line.indexOf("\t", a + 1);
  return {
    rowId: line.slice(0, a),
    rowNumber: Number(line.slice(a + 1, b)),
    identity: line.slice(b + 1),
  };
}

/** Category and key of an identity, decoded for reports. */
export function describeIdentity(identity: string): { category_key?: string; key: unknown } {
  const tab = identity.indexOf("\t");
  const cat = identity.slice(0, tab);
  const key: unknown = JSON.parse(identity.slice(tab + 1));
  return cat === "" ? { key } : { category_key: JSON.parse(cat) as string, key };
}

/** Bytes buffered per bucket before it is written. */
const BUCKET_BUFFER_BYTES = 64 << 10;

/** Appends index lines to bucket files under dir, buffering 64 KB per bucket. */
export class KeyIndexWriter {
  readonly #batches: ByteBatch[] = [];
  /** The bucket files (an XLSX worker appends to them directly). */
  readonly fds: number[] = [];
  /** The bucket files' paths, when this writer created them (CSV workers pwrite to them). */
  readonly paths: string[] = [];

  readonly #owned: boolean;

  /** Creates the bucket files under dir, or writes to bucket fds opened elsewhere (kept open). */
  constructor(
    readonly dir: string | number[],
    readonly buckets: number,
  ) {
    this.#owned = typeof dir === "string";
    if (typeof dir === "string") mkdirSync(dir, { recursive: true });
    for (let b = 0; b < buckets; b++) {
      const file = typeof dir === "string" ? path.join(dir, keyBucketName(b)) : undefined;
      const fd = file ? openSync(file, TRUNCATE_AND_APPEND) : (dir as number[])[b]!;
      if (file) this.paths.push(file);
      this.fds.push(fd);
      this.#batches.push(new ByteBatch(BUCKET_BUFFER_BYTES, (buf, n) => writeAllSync(fd, buf, n)));
    }
  }

  /** Records one fact; catJson is "" for a single-category snapshot. */
  add(rowId: string, rowNumber: number, catJson: string, keyJson: string): void {
    this.#batches[bucketOf(catJson, keyJson, this.buckets)]!.add(
      indexLine(rowId, rowNumber, catJson, keyJson),
    );
  }

  /** Appends pre-encoded index lines of one bucket (from a worker). */
  addBytes(bucket: number, bytes: Uint8Array): void {
    const batch = this.#batches[bucket]!;
    batch.flush();
    writeAllSync(this.fds[bucket]!, bytes);
  }

  /** Writes out what is buffered. */
  flush(): void {
    for (const b of this.#batches) b.flush();
  }

  /** Flushes and closes every bucket file. */
  close(): void {
    try {
      for (const b of this.#batches) b.flush();
    } finally {
      const fds = this.fds.splice(0);
      if (this.#owned) for (const fd of fds) closeSync(fd);
    }
  }
}
