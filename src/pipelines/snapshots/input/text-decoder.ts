import iconv from "iconv-lite";

/** The bytes are not valid text in the file's encoding. */
export class EncodingError extends Error {
  constructor(encoding: string, cause?: unknown) {
    super(`the file is not valid ${encoding} text`, { cause });
    this.name = "EncodingError";
  }
}

/** Turns byte chunks into text, keeping multi-byte characters split across chunks intact. */
export interface ChunkDecoder {
  /** The encoding actually used (a BOM overrides the configured one). */
  readonly encoding: string;
  write(chunk: Uint8Array): string;
  /** Flushes; throws EncodingError if the text ends inside a character. */
  end(): string;
}

/** Canonical spelling of the UTF-8 names a config may use. */
export function isUtf8(encoding: string): boolean {
  return /^utf-?8$/i.test(encoding.trim());
}

/** The BOM-implied encoding of a file's first bytes, if any. */
export function encodingFromBom(head: Uint8Array): "utf-8" | "utf-16le" | "utf-16be" | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return "utf-8";
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  return undefined;
}

/** True when iconv-lite (or the built-in UTF-8 decoder) can decode this encoding. */
export function encodingSupported(encoding: string): boolean {
  return isUtf8(encoding) || iconv.encodingExists(encoding);
}

/**
 * A decoder for the configured encoding; a BOM at the start of the file wins over the
 * configuration (a UTF-8 BOM cannot start a sensible windows-1251 file) and is stripped.
 * UTF-8 is strict: invalid bytes are an error, never silently replaced.
 */
export function createChunkDecoder(configured: string, head: Uint8Array): ChunkDecoder {
  const encoding = encodingFromBom(head) ?? (isUtf8(configured) ? "utf-8" : configured);
  if (encoding === "utf-8") {
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
    return {
      encoding,
      write(chunk) {
        try {
          return decoder.decode(chunk, { stream: true });
        } catch (err) {
          throw new EncodingError(encoding, err);
        }
      },
      end() {
        try {
          return decoder.decode();
        } catch (err) {
          throw new EncodingError(encoding, err);
        }
      },
    };
  }
  const decoder = iconv.getDecoder(encoding, { stripBOM: true });
  return {
    encoding,
    write: (chunk) => decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
    end: () => decoder.end() ?? "",
  };
}
