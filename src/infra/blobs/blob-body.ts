import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import type { BlobBody } from "./blob-store.ts";

/** What writing a body produced: byte count and MD5 digest of exactly those bytes. */
export interface WrittenBody {
  size: number;
  md5: Buffer;
}

/** Turns a string into its UTF-8 bytes and passes byte arrays through unchanged. */
export function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}

/** True when the whole body is already in memory (no streaming needed). */
export function isInMemoryBody(body: BlobBody): body is string | Uint8Array {
  return typeof body === "string" || body instanceof Uint8Array;
}

/**
 * Yields a body as byte chunks. A Readable may emit strings (e.g. `Readable.from(["a"])` or after
 * `setEncoding`), so those are encoded as UTF-8 like string bodies.
 */
export async function* bodyChunks(body: BlobBody): AsyncGenerator<Uint8Array> {
  if (isInMemoryBody(body)) {
    yield bodyBytes(body);
    return;
  }
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    yield typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
  }
}

/**
 * Streams body into an open file, hashing as it goes so nothing is buffered whole. Each write is
 * awaited before the next chunk is pulled, which is the backpressure. Does not fsync or close.
 */
export async function writeBodyToFile(handle: FileHandle, body: BlobBody): Promise<WrittenBody> {
  const hash = createHash("md5");
  let size = 0;
  for await (const chunk of bodyChunks(body)) {
    hash.update(chunk);
    size += chunk.byteLength;
    let offset = 0;
    // FileHandle.write may write fewer bytes than asked; loop until the chunk is fully on disk.
    while (offset < chunk.byteLength) {
      const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
      offset += bytesWritten;
    }
  }
  return { size, md5: hash.digest() };
}
