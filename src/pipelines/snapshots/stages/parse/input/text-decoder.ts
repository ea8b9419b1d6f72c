import iconv from "iconv-lite";

/** Where in the file a problem is: its line (1 = first) and byte offset from the file's start. */
export interface FilePosition {
  line: number;
  byte?: number;
}

/** The bytes are not valid text in the file's encoding (`at`: the first invalid byte). */
export class EncodingError extends Error {
  constructor(
    encoding: string,
    cause?: unknown,
    readonly at?: FilePosition,
  ) {
    super(`the file is not valid ${encoding} text${at ? ` at ${describePosition(at)}` : ""}`, {
      cause,
    });
    this.name = "EncodingError";
  }
}

/** `line N (byte offset B)`, the way gate details name a place in a file. */
export function describePosition(at: FilePosition): string {
  return at.byte === undefined ? `line ${at.line}` : `line ${at.line} (byte offset ${at.byte})`;
}

/** LF bytes in bytes[from, to). */
export function countLf(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i] === 10) n++;
  return n;
}

/**
 * Offset of the first byte that does not start a valid UTF-8 character (WHATWG's strict rules:
 * no overlong forms, surrogates or code points past U+10FFFF; a character cut by the end counts),
 * or -1 when all of `b` is valid. Only run once a read has failed, to say where.
 */
export function invalidUtf8At(b: Uint8Array, from = 0): number {
  let i = from;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** The EncodingError of UTF-8 bytes that failed to decode: `first` is where they sit in the file. */
export function utf8ErrorIn(
  bytes: Uint8Array,
  first: FilePosition & { byte: number },
  cause?: unknown,
): EncodingError {
  // Up to 3 leading continuation bytes finish a character begun before `bytes`.
  let from = 0;
  while (from < 3 && from < bytes.length && (bytes[from]! & 0xc0) === 0x80) from++;
  const pos = Math.max(invalidUtf8At(bytes, from), 0);
  const at = { line: first.line + countLf(bytes, 0, pos), byte: first.byte + pos };
  return new EncodingError("utf-8", cause, at);
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
  if (encoding === "utf-8") return utf8Decoder();
  const decoder = iconv.getDecoder(encoding, { stripBOM: true });
  return {
    encoding,
    write: (chunk) => decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
    end: () => decoder.end() ?? "",
  };
}

/** Strict UTF-8, keeping count of bytes and lines so an error can say where it is. */
function utf8Decoder(): ChunkDecoder {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let bytes = 0;
  let line = 1;
  // The last bytes decoded: a character the previous chunk left unfinished starts in them.
  let recent = new Uint8Array(0);
  return {
    encoding: "utf-8",
    write(chunk) {
      try {
        const text = decoder.decode(chunk, { stream: true });
        bytes += chunk.length;
        line += countLf(chunk, 0, chunk.length);
        recent = Buffer.concat([recent, chunk.subarray(-3)]).subarray(-3);
        return text;
      } catch (err) {
        const from = {
          line: line - countLf(recent, 0, recent.length),
          byte: bytes - recent.length,
        };
        throw utf8ErrorIn(Buffer.concat([recent, chunk]), from, err);
      }
    },
    end() {
      try {
        return decoder.decode();
      } catch (err) {
        // The file ends inside a character.
        throw new EncodingError("utf-8", err, { line });
      }
    },
  };
}
