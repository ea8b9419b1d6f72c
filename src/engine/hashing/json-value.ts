/**
 * Value model of the lossless JSON parser.
 *
 * Numbers keep their source text because Python decides int-vs-float from the lexeme
 * (`4` vs `4.0`) and keeps big integers exact; a JS `number` would lose both facts.
 */
import { isIntegerLexeme } from "./python-number-lexeme.ts";

// RFC 8259 number grammar; the constructor enforces it so formatting may trust the lexeme.
const NUMBER_LEXEME = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** A JSON number kept as its exact source lexeme. */
export class JsonNumber {
  readonly lexeme: string;

  constructor(lexeme: string) {
    if (!NUMBER_LEXEME.test(lexeme)) {
      throw new SyntaxError(`Invalid JSON number lexeme: ${JSON.stringify(lexeme)}`);
    }
    this.lexeme = lexeme;
  }

  /** True when Python's json.loads would produce an `int` (no fraction, no exponent). */
  get isInteger(): boolean {
    return isIntegerLexeme(this.lexeme);
  }

  /** The nearest JS double (lossy for big integers); for convenience, never used for hashing. */
  toNumber(): number {
    return Number(this.lexeme);
  }

  /** The exact source lexeme. */
  toString(): string {
    return this.lexeme;
  }
}

/** An object from the lossless parser: null prototype, so keys like `__proto__` are plain data. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Any value produced by `parseJsonLossless`. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
