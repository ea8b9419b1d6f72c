import { createHash, type Hash } from "node:crypto";
import { Readable } from "node:stream";

/** Reading the input's bytes failed (I/O error, connection reset): the file is unreadable. */
export class SourceReadError extends Error {
  constructor(cause: unknown) {
    super(`cannot read the file: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "SourceReadError";
  }
}

/** Bytes of the input as read for parsing, hashed on the way (what was parsed is what was hashed). */
export interface ByteSource {
  /** The first bytes (up to the size asked), for sniffing and BOM detection. */
  head: Buffer;
  /** Every byte, head included, in order. */
  chunks: AsyncIterable<Buffer>;
  /** SHA-256 hex and size of everything yielded so far (complete once chunks is exhausted). */
  digest(): { sha256: string; bytes: number };
}

/**
 * Reads the head of a byte stream and hands back a replay of the whole stream that hashes as it
 * goes. The input may reuse one buffer for every chunk (a chunk is valid until the next one is
 * requested): the head is copied, and consumers must copy what they keep (they do: decoders and
 * the record splitter consume at once, toReadable copies).
 */
export async function openByteSource(
  input: AsyncIterable<Uint8Array | string>,
  headBytes: number,
  close: () => void,
): Promise<ByteSource> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Uint8Array | string>;
  const first: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < headBytes) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = Buffer.from(next.value as Uint8Array);
    first.push(chunk);
    size += chunk.length;
  }
  const head = Buffer.concat(first);
  const hasher: Hash = createHash("sha256");
  let bytes = 0;
  let sha256: string | undefined;
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      for (const chunk of first) {
        hasher.update(chunk);
        bytes += chunk.length;
        yield chunk;
      }
      first.length = 0;
      while (!done) {
        let next: IteratorResult<Uint8Array | string>;
        try {
          next = await it.next();
        } catch (err) {
          throw new SourceReadError(err);
        }
        if (next.done) break;
        const v = next.value;
        const chunk =
          typeof v === "string"
            ? Buffer.from(v)
            : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
        hasher.update(chunk);
        bytes += chunk.length;
        yield chunk;
      }
      sha256 = hasher.digest("hex");
    } finally {
      if (sha256 === undefined) close();
    }
  }
  return {
    head: head.subarray(0, headBytes),
    chunks: replay(),
    digest: () => ({ sha256: sha256 ?? "", bytes }),
  };
}

/** The replayed chunks as a Readable of stable copies (for readers that keep chunks, e.g. exceljs). */
export function toReadable(source: ByteSource): Readable {
  async function* copies(): AsyncGenerator<Buffer> {
    for await (const chunk of source.chunks) yield Buffer.from(chunk);
  }
  return Readable.from(copies(), { objectMode: false });
}
