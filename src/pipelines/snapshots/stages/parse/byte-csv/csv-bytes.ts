/**
 * CSV records straight from UTF-8 bytes: field byte ranges, no strings. The fast path of the
 * batch reader; record boundaries and line numbers follow CsvRecordParser exactly (LF or
 * CRLF ends a record, line = 1 + LFs before it, blank lines skipped). Anything unusual (text
 * after a closing quote) is only flagged: the caller re-reads that record with CsvRecordParser.
 */
import { CsvSyntaxError } from "../extract/csv-records.ts";

const LF = 10;
const CR = 13;

/** Field flag: the field was quoted. */
export const QUOTED = 1;
/** Field flag: the quoted field contains doubled quotes to unescape. */
export const ESCAPED = 2;

/** One record as byte ranges into the batch (valid until the next record). */
export interface ByteRecord {
  buf: Buffer;
  starts: Int32Array;
  ends: Int32Array;
  flags: Uint8Array;
  count: number;
  line: number;
  /** Byte range of the whole record including its line ending. */
  start: number;
  end: number;
  malformed: boolean;
}

/** What a record's scan counts besides its fields. */
interface ScanState {
  /** Line of the record (errors name it). */
  line: number;
  /** LFs inside its quoted fields. */
  lfs: number;
  malformed: boolean;
}

/** Calls onRecord for every non-blank record of a batch of whole records. */
export function scanRecords(
  buf: Buffer,
  delimiter: string,
  quote: string,
  firstLine: number,
  onRecord: (r: ByteRecord) => void,
): void {
  const delim = delimiter.charCodeAt(0);
  const q = quote.charCodeAt(0);
  const len = buf.length;
  const rec: ByteRecord = {
    buf,
    starts: new Int32Array(64),
    ends: new Int32Array(64),
    flags: new Uint8Array(64),
    count: 0,
    line: firstLine,
    start: 0,
    end: 0,
    malformed: false,
  };
  const st: ScanState = { line: firstLine, lfs: 0, malformed: false };
  let pos = 0;
  while (pos < len) {
    let i = pos;
    let n = 0;
    st.lfs = 0;
    st.malformed = false;
    let end = len;
    for (;;) {
      if (n === rec.starts.length) growRecord(rec);
      const j =
        i < len && buf[i] === q
          ? quotedField(buf, i, q, delim, rec, n, st)
          : plainField(buf, i, delim, rec, n);
      n++;
      if (j >= len) break;
      const c = buf[j];
      if (c === delim) {
        i = j + 1;
        continue;
      }
      end = c === CR ? j + 2 : j + 1;
      break;
    }
    const recordLine = st.line;
    st.line += st.lfs + 1;
    const start = pos;
    pos = end;
    if (n === 1 && rec.starts[0] === rec.ends[0] && !st.malformed) continue;
    rec.count = n;
    rec.line = recordLine;
    rec.start = start;
    rec.end = end;
    rec.malformed = st.malformed;
    onRecord(rec);
  }
}

/** Doubles the record's field capacity. */
function growRecord(rec: ByteRecord): void {
  const cap = rec.starts.length * 2;
  const grow = <T extends Int32Array | Uint8Array>(a: T, make: (c: number) => T) => {
    const b = make(cap);
    b.set(a);
    return b;
  };
  rec.starts = grow(rec.starts, (c) => new Int32Array(c));
  rec.ends = grow(rec.ends, (c) => new Int32Array(c));
  rec.flags = grow(rec.flags, (c) => new Uint8Array(c));
}

/**
 * Field `n` quoted from `i`: its range inside the quotes; returns where the field ends. Text
 * after the closing quote marks the record malformed (skipped to the next delimiter or LF).
 */
function quotedField(
  buf: Buffer,
  i: number,
  q: number,
  delim: number,
  rec: ByteRecord,
  n: number,
  st: ScanState,
): number {
  const len = buf.length;
  let k = i + 1;
  let flags = QUOTED;
  for (;;) {
    k = buf.indexOf(q, k);
    if (k < 0) throw new CsvSyntaxError("unterminated quoted field", st.line);
    if (buf[k + 1] === q) {
      flags |= ESCAPED;
      k += 2;
      continue;
    }
    break;
  }
  for (let x = buf.indexOf(LF, i + 1); x >= 0 && x < k; x = buf.indexOf(LF, x + 1)) st.lfs++;
  rec.starts[n] = i + 1;
  rec.ends[n] = k;
  rec.flags[n] = flags;
  let j = k + 1;
  if (j < len) {
    const c = buf[j];
    if (c !== delim && c !== LF && !(c === CR && buf[j + 1] === LF)) {
      st.malformed = true;
      while (j < len && buf[j] !== delim && buf[j] !== LF) j++;
      if (j < len && buf[j] === LF && buf[j - 1] === CR) j--;
    }
  }
  return j;
}

/** Field `n` unquoted from `i` (a CR before the LF is not part of it); returns its end. */
function plainField(buf: Buffer, i: number, delim: number, rec: ByteRecord, n: number): number {
  const len = buf.length;
  let j = i;
  while (j < len) {
    const c = buf[j];
    if (c === delim || c === LF) break;
    j++;
  }
  rec.starts[n] = i;
  rec.flags[n] = 0;
  if (j < len && buf[j] === LF && j > i && buf[j - 1] === CR) j--;
  rec.ends[n] = j;
  return j;
}
