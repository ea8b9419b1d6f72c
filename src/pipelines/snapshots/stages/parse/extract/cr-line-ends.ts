/**
 * Classic-Mac ("CSV (Macintosh)") line ends: records that end with a lone CR. The style of a
 * file is decided at its first line end outside quoted fields (see docs/pipelines/snapshots.md,
 * "CSV line ends"): LF or CRLF leaves the bytes untouched (the readers check for stray CRs
 * themselves); a lone CR makes the file a CR file, whose record-ending CRs are handed on as LF
 * so the readers see an LF file. Quoted fields are data and never changed. An LF outside quotes
 * in a CR file mixes two styles: MixedLineEndError.
 *
 * Quotes follow the CSV readers: a quote opens a quoted field only at a field's start (or right
 * after a closing quote: a doubled-quote escape); elsewhere it is data.
 */
import { MixedLineEndError } from "./csv-records.ts";

const LF = 10;
const CR = 13;

const UNDECIDED = 0;
const AS_IS = 1;
const CR_FILE = 2;

/** Translates one stream of code units (bytes or UTF-16 characters), chunk by chunk. */
export class CrLineEnds {
  readonly #delim: number;
  readonly #quote: number;
  #mode: number;
  #quoted = false;
  #fieldStart = true;
  #afterClose = false;
  /** Undecided and the last unit seen is a CR outside quotes: the next unit decides. */
  #held = false;
  /** Line of the next unit: 1 + record ends + line feeds inside quoted fields (as row_number). */
  #line = 1;
  /** Units handed in before the current chunk. */
  #offset = 0;

  constructor(delimiter: string, quote: string) {
    this.#delim = delimiter.charCodeAt(0);
    this.#quote = quote.charCodeAt(0);
    const special = [CR, LF];
    this.#mode = special.includes(this.#delim) || special.includes(this.#quote) ? AS_IS : UNDECIDED;
  }

  /** True once the file is known to end its records with a lone CR. */
  get crFile(): boolean {
    return this.#mode === CR_FILE;
  }

  /** The bytes to parse for `chunk` (the chunk itself unless CRs are translated or held). */
  bytes(chunk: Uint8Array): Uint8Array {
    if ((this.#mode === AS_IS && !this.#held) || chunk.length === 0) return chunk;
    const held = this.#held ? this.#resolveHeld(chunk[0]!) : -1;
    const at = this.#scan(chunk.length, (i) => chunk[i]!);
    if (held < 0 && at.length === 0 && !this.#held) return chunk;
    const keep = this.#held ? chunk.length - 1 : chunk.length;
    const out = new Uint8Array(keep + (held < 0 ? 0 : 1));
    if (held >= 0) out[0] = held;
    const shift = held < 0 ? 0 : 1;
    out.set(chunk.subarray(0, keep), shift);
    for (const i of at) out[i + shift] = LF;
    return out;
  }

  /** The text to parse for `chunk` (decoded characters; same rules as bytes()). */
  text(chunk: string): string {
    if ((this.#mode === AS_IS && !this.#held) || chunk.length === 0) return chunk;
    const held = this.#held ? this.#resolveHeld(chunk.charCodeAt(0)) : -1;
    const at = this.#scan(chunk.length, (i) => chunk.charCodeAt(i));
    const keep = this.#held ? chunk.length - 1 : chunk.length;
    let out = held < 0 ? "" : String.fromCharCode(held);
    let from = 0;
    for (const i of at) {
      out += `${chunk.slice(from, i)}\n`;
      from = i + 1;
    }
    return out + chunk.slice(from, keep);
  }

  /** What is still held at the end of the input (a CR as the last unit: a CR file's end). */
  end(): number | undefined {
    if (!this.#held) return undefined;
    this.#held = false;
    this.#mode = CR_FILE;
    return LF;
  }

  /**
   * Decides the CR held from the last chunk by the unit after it. Returns the unit to put before
   * the chunk: LF for a CR file's line end, else the CR itself.
   */
  #resolveHeld(next: number): number {
    this.#held = false;
    if (next === LF) {
      this.#mode = AS_IS;
      return CR;
    }
    this.#crFileLineEnd();
    return LF;
  }

  #crFileLineEnd(): void {
    this.#mode = CR_FILE;
    this.#line++;
    this.#fieldStart = true;
    this.#afterClose = false;
  }

  /** Scans a chunk; returns the indexes of CRs that end records of a CR file. */
  #scan(len: number, at: (i: number) => number): number[] {
    const out: number[] = [];
    const quote = this.#quote;
    const delim = this.#delim;
    let i = 0;
    for (; i < len && this.#mode !== AS_IS; i++) {
      const c = at(i);
      if (this.#quoted) {
        if (c === quote) {
          this.#quoted = false;
          this.#afterClose = true;
        } else if (c === LF) this.#line++;
        continue;
      }
      if (c === quote && (this.#fieldStart || this.#afterClose)) {
        this.#quoted = true;
        this.#fieldStart = false;
        this.#afterClose = false;
        continue;
      }
      this.#afterClose = false;
      this.#fieldStart = c === delim;
      if (c === CR) {
        if (this.#mode === CR_FILE) {
          out.push(i);
          this.#crFileLineEnd();
        } else if (i + 1 === len) this.#held = true;
        else if (at(i + 1) === LF) this.#mode = AS_IS;
        else {
          out.push(i);
          this.#crFileLineEnd();
        }
      } else if (c === LF) {
        if (this.#mode === CR_FILE) throw new MixedLineEndError(this.#line, this.#offset + i);
        this.#mode = AS_IS;
      }
    }
    this.#offset += len;
    return out;
  }
}
