import iconv from "iconv-lite";
import { isUtf8 } from "./text-decoder.ts";

/** Bytes `text` takes in `encoding` (what the decoder turned those bytes into). */
function encodedLength(text: string, encoding: string): number {
  if (isUtf8(encoding)) return Buffer.byteLength(text, "utf8");
  if (/^(utf-?16(le|be)?|ucs-?2)$/i.test(encoding)) return text.length * 2;
  return iconv.encode(text, encoding).length;
}

interface Piece {
  text: string;
  charStart: number;
  byteStart: number;
}

/**
 * Maps character offsets of decoded text back to byte offsets of the file, so the text path can
 * name a byte like the byte path does. Only the last two pieces are kept: a position the parser
 * reports lies in the piece it was just given, or at the end of the one before (a CR whose next
 * character arrived with the next piece).
 */
export class TextOffsets {
  #pieces: Piece[] = [];
  #chars = 0;
  #bytes: number;

  constructor(
    private readonly encoding: string,
    /** Bytes before the first decoded character (a BOM the decoder dropped). */
    skipped: number,
  ) {
    this.#bytes = skipped;
  }

  /** Records the next decoded piece. */
  add(text: string): void {
    if (text.length === 0) return;
    this.#pieces.push({ text, charStart: this.#chars, byteStart: this.#bytes });
    if (this.#pieces.length > 2) this.#pieces.shift();
    this.#chars += text.length;
    this.#bytes += encodedLength(text, this.encoding);
  }

  /** Byte offset of the character at `offset`, or undefined if it is no longer known. */
  byteAt(offset: number): number | undefined {
    const p = this.#pieces.find(
      (x) => offset >= x.charStart && offset < x.charStart + x.text.length,
    );
    if (!p) return undefined;
    return p.byteStart + encodedLength(p.text.slice(0, offset - p.charStart), this.encoding);
  }
}
