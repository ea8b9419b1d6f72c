/**
 * Byte-level building blocks of the fast-path emitter: UTF-8 code points, JSON string escaping
 * exactly as JSON.stringify does it, decimal scaling and integer writing without strings.
 */
const HEX = "0123456789abcdef";
/** Code points String.prototype.trim removes beyond ASCII. */
export function isUnicodeSpace(cp: number): boolean {
  return (
    cp === 0xa0 ||
    cp === 0xfeff ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/** The code point starting at i (valid UTF-8). */
export function codePointAt(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return c;
  if (c < 0xe0) return ((c & 0x1f) << 6) | (b[i + 1]! & 0x3f);
  if (c < 0xf0) return ((c & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
  return (
    ((c & 0x07) << 18) | ((b[i + 1]! & 0x3f) << 12) | ((b[i + 2]! & 0x3f) << 6) | (b[i + 3]! & 0x3f)
  );
}

/** ASCII whitespace String.prototype.trim removes (tab, LF, VT, FF, CR, space). */
export const isAsciiSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

/** Where the last fnv1aUtf8 call stopped (see fnvStoppedAt). */
let stoppedAt = 0;

/** Where the last fnv1aUtf8 call stopped: at its `stop` byte, or at `end`. */
export function fnvStoppedAt(): number {
  return stoppedAt;
}

/**
 * FNV-1a over the UTF-16 code units of UTF-8 bytes: equals fnv1a() of the decoded string. With
 * `stop` (an ASCII byte, e.g. LF), it hashes up to the first such byte instead of `end`, and
 * fnvStoppedAt() tells where that was: one pass both finds a line's end and hashes the line.
 */
export function fnv1aUtf8(b: Uint8Array, start: number, end: number, h: number, stop = -1): number {
  let i = start;
  while (i < end) {
    const c = b[i]!;
    if (c === stop) break;
    let unit: number;
    if (c < 0x80) {
      unit = c;
      i++;
    } else if (c < 0xe0) {
      unit = ((c & 0x1f) << 6) | (b[i + 1]! & 0x3f);
      i += 2;
    } else if (c < 0xf0) {
      unit = ((c & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
      i += 3;
    } else {
      const cp =
        (((c & 0x07) << 18) |
          ((b[i + 1]! & 0x3f) << 12) |
          ((b[i + 2]! & 0x3f) << 6) |
          (b[i + 3]! & 0x3f)) -
        0x10000;
      h ^= 0xd800 + (cp >> 10);
      h = Math.imul(h, 0x01000193);
      unit = 0xdc00 + (cp & 0x3ff);
      i += 4;
    }
    h ^= unit;
    h = Math.imul(h, 0x01000193);
  }
  stoppedAt = i < end ? i : end;
  return h >>> 0;
}

/**
 * Copies src[a, e) to dst at p; returns the new position. A plain loop: Buffer#copy and
 * TypedArray#set cost a native call and a view allocation, which dominate for the short
 * pieces (prefixes, values, row ids) a fact line is made of.
 */
export function put(src: Uint8Array, a: number, e: number, dst: Uint8Array, p: number): number {
  for (let i = a; i < e; i++) dst[p++] = src[i]!;
  return p;
}

/** Number of decimal digits of a non-negative safe integer. */
export function decimalDigits(n: number): number {
  let digits = 1;
  if (n < 0x80000000) {
    for (let x = n; x >= 10; x = (x / 10) | 0) digits++;
    return digits;
  }
  for (let x = n; x >= 10; x = (x - (x % 10)) / 10) digits++;
  return digits;
}

/** Writes a safe integer's decimal digits at pos; returns the new position. */
export function writeInt(out: Uint8Array, pos: number, value: number): number {
  let p = pos;
  let n = value;
  if (n < 0) {
    out[p++] = 0x2d;
    n = -n;
  }
  if (n < 0x80000000) {
    // Small integers: exact int32 arithmetic, much cheaper than double division.
    const digits = decimalDigits(n);
    for (let i = p + digits - 1; i >= p; i--) {
      const q = (n / 10) | 0;
      out[i] = 48 + n - q * 10;
      n = q;
    }
    return p + digits;
  }
  let digits = 1;
  for (let x = n; x >= 10; x = (x - (x % 10)) / 10) digits++;
  // n % 10 and (n - d) / 10 are exact for safe integers (plain division could round up).
  for (let i = p + digits - 1; i >= p; i--) {
    const d = n % 10;
    out[i] = 48 + d;
    n = (n - d) / 10;
  }
  return p + digits;
}

/** Writes `null` at p; returns the new position. */
export function writeNull(s: Buffer, p: number): number {
  s[p] = 0x6e;
  s[p + 1] = 0x75;
  s[p + 2] = 0x6c;
  s[p + 3] = 0x6c;
  return p + 4;
}

/**
 * `[+-]digits[(.|,)digits]` scaled to `units` fraction digits from bytes; undefined when the
 * general parser is needed (the same cases as the string fast path).
 */
export function scaled(b: Buffer, start: number, end: number, units: number): number | undefined {
  let i = start;
  let negative = false;
  let c = b[i];
  if (c === 0x2d || c === 0x2b) {
    negative = c === 0x2d;
    i++;
  }
  let v = 0;
  let digits = 0;
  for (; i < end; i++) {
    c = b[i]!;
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    digits++;
  }
  let frac = 0;
  if (i < end && (c === 0x2e || c === 0x2c)) {
    for (i++; i < end; i++) {
      c = b[i]!;
      if (c < 48 || c > 57 || frac === units) return undefined;
      v = v * 10 + (c - 48);
      frac++;
      digits++;
    }
  }
  if (i !== end || digits === 0) return undefined;
  for (; frac < units; frac++) v *= 10;
  if (v > Number.MAX_SAFE_INTEGER) return undefined;
  return negative && v !== 0 ? -v : v;
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` naming a real calendar day (what parseDate returns unchanged). */
export function isIsoDate(b: Buffer, a: number): boolean {
  const d = (i: number) => {
    const c = b[a + i]! - 48;
    return c >= 0 && c <= 9 ? c : Number.NaN;
  };
  if (b[a + 4] !== 0x2d || b[a + 7] !== 0x2d) return false;
  const y = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
  const m = d(5) * 10 + d(6);
  const day = d(8) * 10 + d(9);
  // Years below 100 go to parseDate (Date.UTC maps them to 19xx and refuses them).
  if (!(m >= 1 && m <= 12 && day >= 1 && y >= 100)) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return day <= (m === 2 && !leap ? 28 : DAYS[m - 1]!);
}

/** A JSON string of UTF-8 bytes, escaped exactly as JSON.stringify escapes. */
export function writeJsonString(b: Buffer, a: number, e: number, s: Buffer, p: number): number {
  s[p++] = 0x22;
  for (let i = a; i < e; i++) {
    const c = b[i]!;
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      s[p++] = c;
      continue;
    }
    s[p++] = 0x5c;
    if (c === 0x22 || c === 0x5c) s[p++] = c;
    else if (c === 0x08) s[p++] = 0x62;
    else if (c === 0x0c) s[p++] = 0x66;
    else if (c === 0x0a) s[p++] = 0x6e;
    else if (c === 0x0d) s[p++] = 0x72;
    else if (c === 0x09) s[p++] = 0x74;
    else {
      s[p++] = 0x75;
      s[p++] = 0x30;
      s[p++] = 0x30;
      s[p++] = HEX.charCodeAt(c >> 4);
      s[p++] = HEX.charCodeAt(c & 15);
    }
  }
  s[p++] = 0x22;
  return p;
}
