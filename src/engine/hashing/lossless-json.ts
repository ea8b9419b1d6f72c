/**
 * Strict RFC 8259 JSON parser that keeps every number's lexeme.
 *
 * Hand-written single pass over char codes: it runs on large payloads and million-row files,
 * where regex-driven or two-pass approaches cost too much.
 */
import { JsonNumber, type JsonObject, type JsonValue } from "./json-value.ts";

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const BRACKET_OPEN = 0x5b;
const BACKSLASH = 0x5c;
const BRACKET_CLOSE = 0x5d;
const LOWER_E = 0x65;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;

/** A JSON syntax error that says where it happened (0-based offset, 1-based line and column). */
export class JsonSyntaxError extends SyntaxError {
  readonly offset: number;
  readonly line: number;
  readonly column: number;

  constructor(detail: string, text: string, offset: number) {
    const { line, column } = lineAndColumn(text, offset);
    super(`${detail} at offset ${offset} (line ${line}, column ${column})`);
    this.name = "JsonSyntaxError";
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

/** Parse JSON text into a JsonValue, keeping number lexemes; duplicate keys: the last wins. */
export function parseJsonLossless(text: string): JsonValue {
  return new Parser(text).parseDocument();
}

// Computed only when an error is raised, so the happy path never counts lines.
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === LF) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

function hexValue(code: number): number {
  if (code >= ZERO && code <= NINE) return code - ZERO;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

// An open container: exactly one of `array` / `object` is set; `key` is the pending member.
interface Frame {
  array: JsonValue[] | null;
  object: JsonObject | null;
  key: string;
}

class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail("Unexpected data after the JSON value");
    return value;
  }

  private fail(detail: string, offset: number = this.pos): never {
    throw new JsonSyntaxError(detail, this.text, offset);
  }

  private failUnexpected(): never {
    if (this.pos >= this.text.length) this.fail("Unexpected end of JSON input");
    const code = this.text.codePointAt(this.pos) ?? 0;
    const shown =
      code < SPACE || code === 0x7f
        ? `U+${code.toString(16).toUpperCase().padStart(4, "0")}`
        : JSON.stringify(String.fromCodePoint(code));
    this.fail(`Unexpected character ${shown}`);
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code === SPACE || code === LF || code === CR || code === TAB) pos++;
      else break;
    }
    this.pos = pos;
  }

  // Iterative with an explicit stack of open containers, so nesting depth is bounded by
  // memory rather than by the JS call stack, whose size depends on the host.
  private parseValue(): JsonValue {
    const text = this.text;
    const stack: Frame[] = [];
    let value: JsonValue;
    for (;;) {
      // Parse one value starting at `pos` (whitespace already skipped).
      const code = text.charCodeAt(this.pos);
      if (code === BRACKET_OPEN) {
        this.pos++;
        this.skipWhitespace();
        const array: JsonValue[] = [];
        if (text.charCodeAt(this.pos) !== BRACKET_CLOSE) {
          stack.push({ array, object: null, key: "" });
          continue;
        }
        this.pos++;
        value = array;
      } else if (code === BRACE_OPEN) {
        this.pos++;
        this.skipWhitespace();
        // Null prototype: `__proto__`, `constructor`, ... become ordinary own keys.
        const object: JsonObject = Object.create(null);
        if (text.charCodeAt(this.pos) !== BRACE_CLOSE) {
          stack.push({ array: null, object, key: this.parseKey() });
          continue;
        }
        this.pos++;
        value = object;
      } else {
        value = this.parseScalar(code);
      }

      // Attach the finished value to its parent, closing as many containers as end here.
      for (;;) {
        const frame = stack[stack.length - 1];
        if (frame === undefined) return value;
        if (frame.array !== null) frame.array.push(value);
        else if (frame.object !== null) frame.object[frame.key] = value; // last duplicate wins
        this.skipWhitespace();
        const next = text.charCodeAt(this.pos);
        if (next === COMMA) {
          this.pos++;
          this.skipWhitespace();
          if (frame.object !== null) frame.key = this.parseKey();
          break;
        }
        if (frame.array !== null ? next !== BRACKET_CLOSE : next !== BRACE_CLOSE) {
          this.failUnexpected();
        }
        this.pos++;
        stack.pop();
        value = frame.array ?? frame.object ?? null;
      }
    }
  }

  // Reads `"key"` and the following colon, leaving `pos` at the member's value.
  private parseKey(): string {
    if (this.text.charCodeAt(this.pos) !== QUOTE) this.failUnexpected();
    const key = this.parseString();
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== COLON) this.failUnexpected();
    this.pos++;
    this.skipWhitespace();
    return key;
  }

  private parseScalar(code: number): JsonValue {
    switch (code) {
      case QUOTE:
        return this.parseString();
      case 0x74: // t
        return this.parseLiteral("true", true);
      case 0x66: // f
        return this.parseLiteral("false", false);
      case 0x6e: // n
        return this.parseLiteral("null", null);
      default:
        if (code === MINUS || isDigit(code)) return this.parseNumber();
        return this.failUnexpected();
    }
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) {
      // Point at the first mismatching character, not at the literal's start.
      let i = 0;
      while (i < word.length && this.text.charCodeAt(this.pos + i) === word.charCodeAt(i)) i++;
      this.pos += i;
      this.failUnexpected();
    }
    this.pos += word.length;
    return value;
  }

  private parseNumber(): JsonNumber {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === MINUS) pos++;
    const first = text.charCodeAt(pos);
    if (first === ZERO) {
      pos++;
    } else if (isDigit(first)) {
      pos++;
      while (isDigit(text.charCodeAt(pos))) pos++;
    } else {
      this.pos = pos;
      this.failUnexpected();
    }
    if (text.charCodeAt(pos) === DOT) {
      pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = pos;
        this.failUnexpected();
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === LOWER_E || e === UPPER_E) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === PLUS || sign === MINUS) pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = pos;
        this.failUnexpected();
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    this.pos = pos;
    return new JsonNumber(text.slice(start, pos));
  }

  private parseString(): string {
    const text = this.text;
    const start = this.pos + 1;
    let pos = start;
    // Fast path: most strings contain no escapes, so a single slice suffices.
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code === QUOTE) {
        this.pos = pos + 1;
        return text.slice(start, pos);
      }
      if (code === BACKSLASH || code < SPACE || Number.isNaN(code)) break;
      pos++;
    }
    return this.parseEscapedString(start, pos);
  }

  private parseEscapedString(start: number, firstSpecial: number): string {
    const text = this.text;
    let out = text.slice(start, firstSpecial);
    let pos = firstSpecial;
    let chunkStart = pos;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code === QUOTE) {
        this.pos = pos + 1;
        return out + text.slice(chunkStart, pos);
      }
      if (code === BACKSLASH) {
        out += text.slice(chunkStart, pos);
        out += this.parseEscape(pos, start - 1);
        pos += text.charCodeAt(pos + 1) === 0x75 ? 6 : 2;
        chunkStart = pos;
      } else if (Number.isNaN(code)) {
        this.fail("Unterminated string", start - 1);
      } else if (code < SPACE) {
        // RFC 8259 (and Python's strict default) forbid raw control characters in strings.
        this.pos = pos;
        this.failUnexpected();
      } else {
        pos++;
      }
    }
  }

  // Decodes one escape; `\uXXXX` yields a single UTF-16 code unit, so escaped surrogate
  // pairs recombine by concatenation and lone ones survive (canonicalJson rejects them).
  private parseEscape(pos: number, stringStart: number): string {
    const text = this.text;
    const code = text.charCodeAt(pos + 1);
    switch (code) {
      case QUOTE:
        return '"';
      case BACKSLASH:
        return "\\";
      case SLASH:
        return "/";
      case 0x62: // b
        return "\b";
      case 0x66: // f
        return "\f";
      case 0x6e: // n
        return "\n";
      case 0x72: // r
        return "\r";
      case 0x74: // t
        return "\t";
      case 0x75: {
        // u
        let unit = 0;
        for (let i = 2; i < 6; i++) {
          const digit = hexValue(text.charCodeAt(pos + i));
          if (digit < 0) {
            this.pos = pos + i;
            if (this.pos >= text.length) this.fail("Unterminated string", stringStart);
            this.fail("Invalid \\u escape: expected 4 hex digits");
          }
          unit = (unit << 4) | digit;
        }
        return String.fromCharCode(unit);
      }
      default:
        this.pos = pos + 1;
        if (Number.isNaN(code)) this.fail("Unterminated string", stringStart);
        return this.fail(
          `Invalid escape ${JSON.stringify(`\\${String.fromCodePoint(text.codePointAt(pos + 1) ?? 0)}`)}`,
        );
    }
  }
}
