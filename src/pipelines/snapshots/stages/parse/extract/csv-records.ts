/**
 * Streaming RFC 4180 CSV record parser over decoded text chunks.
 *
 * Hand-written because it is the ingestion hot path: on the 1M-row benchmark csv-parse alone
 * took longer than DuckDB's whole transform. Records are handed to a synchronous callback with
 * a reused fields array (no per-record array allocation); the callback must copy what it keeps.
 */

const LF = 10;
const CR = 13;

/** Longest record kept while waiting for its end (a runaway quoted field is a broken file). */
export const MAX_RECORD_CHARS = 16 * 1024 * 1024;

/** The text is not valid CSV as a whole (unterminated quote, runaway record). */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (line ${line})`);
    this.name = "CsvSyntaxError";
  }
}

/**
 * A CR outside quoted fields that is not followed by LF (classic-Mac line ends, or one stray in
 * an LF file): records end at LF or CRLF, so such a file would silently merge records.
 */
export class LoneCrError extends Error {
  constructor(
    /** 1-based line of the CR (LFs before it + 1, as row_number counts). */
    readonly line: number,
    /** Offset of the CR from the start of the text (characters) or bytes (byte path). */
    readonly offset: number,
  ) {
    super(`lone CR line ending at line ${line}`);
    this.name = "LoneCrError";
  }
}

/**
 * An LF outside quoted fields in a file whose records end with a lone CR (a classic-Mac file):
 * two line-ending styles mixed, so records cannot be told apart safely.
 */
export class MixedLineEndError extends LoneCrError {
  constructor(line: number, offset: number) {
    super(line, offset);
    this.message = `LF line ending at line ${line} in a file whose records end with a lone CR`;
    this.name = "MixedLineEndError";
  }
}

/** What the parser does with a lone CR outside quotes. */
export interface CsvParserOptions {
  /** `data` (default): keep it in the field; `error`: throw LoneCrError. */
  loneCr?: "data" | "error";
}

/**
 * Receives one record: `fields` is reused for the next record; `line` is the 1-based line the
 * record starts on; `malformed` is true when text followed a closing quote (`"a"b,`).
 */
export type CsvRecordHandler = (fields: string[], line: number, malformed: boolean) => void;

/** Incremental parser: push() decoded chunks in order, then end(). Blank lines are skipped. */
export class CsvRecordParser {
  readonly #delim: number;
  readonly #quote: number;
  readonly #quoteChar: string;
  readonly #doubledQuote: RegExp;
  readonly #onRecord: CsvRecordHandler;
  readonly #fields: string[] = [];
  readonly #strictCr: boolean;
  #rest = "";
  #line = 1;
  /** Characters consumed before #rest (the text offset of #rest's first character). */
  #offset = 0;

  constructor(
    delimiter: string,
    quote: string,
    onRecord: CsvRecordHandler,
    options: CsvParserOptions = {},
  ) {
    if (delimiter.length !== 1 || quote.length !== 1 || delimiter === quote) {
      throw new Error("CSV delimiter and quote must be two different single characters");
    }
    this.#delim = delimiter.charCodeAt(0);
    this.#quote = quote.charCodeAt(0);
    this.#quoteChar = quote;
    this.#doubledQuote = new RegExp(`${quote.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")}{2}`, "g");
    this.#onRecord = onRecord;
    this.#strictCr = options.loneCr === "error" && delimiter !== "\r" && quote !== "\r";
  }

  /** Sets the line number of the next record (a batch that starts mid-file). */
  setLine(line: number): void {
    this.#line = line;
  }

  /** Parses every complete record in the text seen so far. */
  push(chunk: string): void {
    const text = this.#rest.length === 0 ? chunk : this.#rest + chunk;
    const consumed = this.#parse(text, false);
    this.#offset += consumed;
    this.#rest = consumed === text.length ? "" : text.slice(consumed);
    if (this.#rest.length > MAX_RECORD_CHARS) {
      throw new CsvSyntaxError(
        `record longer than ${MAX_RECORD_CHARS} characters (unterminated quote?)`,
        this.#line,
      );
    }
  }

  /** Parses the last record; throws CsvSyntaxError on an unterminated quoted field. */
  end(): void {
    if (this.#rest.length > 0) this.#offset += this.#parse(this.#rest, true);
    this.#rest = "";
  }

  /**
   * Parses records from text; returns how many characters were fully consumed. Records end at
   * LF or CRLF (a lone CR is data, or a LoneCrError when strict), so line numbers are LF counts
   * on every read path.
   */
  #parse(text: string, final: boolean): number {
    const len = text.length;
    const delim = this.#delim;
    const quote = this.#quote;
    const fields = this.#fields;
    const strict = this.#strictCr;
    let start = 0;
    while (start < len) {
      let i = start;
      let newlines = 0;
      let malformed = false;
      fields.length = 0;
      for (;;) {
        let j: number;
        if (i < len && text.charCodeAt(i) === quote) {
          // Quoted field: find the closing quote, skipping doubled quotes.
          let k = i + 1;
          let escaped = false;
          for (;;) {
            k = text.indexOf(this.#quoteChar, k);
            if (k < 0 || (k + 1 >= len && !final)) break;
            if (k + 1 < len && text.charCodeAt(k + 1) === quote) {
              escaped = true;
              k += 2;
              continue;
            }
            break;
          }
          if (k < 0) {
            if (!final) return start;
            throw new CsvSyntaxError("unterminated quoted field", this.#line);
          }
          // Need the character after the quote (and after a CR) to classify what follows.
          if (k + 2 >= len && !final) return start;
          let value = text.slice(i + 1, k);
          for (let n = value.indexOf("\n"); n >= 0; n = value.indexOf("\n", n + 1)) newlines++;
          if (escaped) value = value.replace(this.#doubledQuote, this.#quoteChar);
          j = k + 1;
          const c = j < len ? text.charCodeAt(j) : LF;
          const crlf = c === CR && j + 1 < len && text.charCodeAt(j + 1) === LF;
          if (strict && c === CR && !crlf) this.#loneCr(j, newlines);
          if (j < len && c !== delim && c !== LF && !crlf) {
            // Text after the closing quote: keep it, flag the record.
            malformed = true;
            let e = j;
            while (e < len) {
              const d = text.charCodeAt(e);
              if (d === delim || d === LF) break;
              if (d === CR && strict && text.charCodeAt(e + 1) !== LF) {
                if (e + 1 >= len && !final) return start;
                this.#loneCr(e, newlines);
              }
              e++;
            }
            if (e >= len && !final) return start;
            const crlfEnd =
              e < len && text.charCodeAt(e) === LF && e > j && text.charCodeAt(e - 1) === CR;
            value += text.slice(j, crlfEnd ? e - 1 : e);
            j = crlfEnd ? e - 1 : e;
          }
          fields.push(value);
        } else {
          j = this.#plainField(text, i, final, newlines);
          if (j < 0) return start;
        }
        if (j >= len) {
          start = len;
          break;
        }
        const c = text.charCodeAt(j);
        if (c === delim) {
          i = j + 1;
          continue;
        }
        // LF or CRLF ends the record.
        start = c === CR ? j + 2 : j + 1;
        break;
      }
      const line = this.#line;
      this.#line += newlines + 1;
      if (fields.length === 1 && fields[0] === "" && !malformed) continue;
      this.#onRecord(fields, line, malformed);
    }
    return start;
  }

  /**
   * An unquoted field from `i`, added to the record's fields (the CR of a CRLF ending is not
   * data); returns where it ends, or -1 when the text so far does not hold all of it.
   */
  #plainField(text: string, i: number, final: boolean, newlines: number): number {
    const len = text.length;
    const delim = this.#delim;
    let j = i;
    while (j < len) {
      const c = text.charCodeAt(j);
      if (c === delim || c === LF) break;
      if (c === CR && this.#strictCr && text.charCodeAt(j + 1) !== LF) {
        if (j + 1 >= len && !final) return -1;
        this.#loneCr(j, newlines);
      }
      j++;
    }
    if (j >= len && !final) return -1;
    const end =
      j < len && text.charCodeAt(j) === LF && j > i && text.charCodeAt(j - 1) === CR ? j - 1 : j;
    this.#fields.push(text.slice(i, end));
    return end;
  }

  /** Throws for the lone CR at `at` of the text being parsed (`newlines` into its record). */
  #loneCr(at: number, newlines: number): never {
    throw new LoneCrError(this.#line + newlines, this.#offset + at);
  }
}
