import { describe, expect, it } from "vitest";
import { JsonNumber, type JsonObject, type JsonValue } from "./json-value.ts";
import { JsonSyntaxError, parseJsonLossless } from "./lossless-json.ts";

function syntaxErrorOf(text: string): JsonSyntaxError {
  try {
    parseJsonLossless(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

function asObject(value: JsonValue): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("expected an object");
  }
  if (value instanceof JsonNumber) throw new Error("expected an object");
  return value;
}

describe("parseJsonLossless", () => {
  it("parses literals, strings, arrays and objects", () => {
    expect(parseJsonLossless("true")).toBe(true);
    expect(parseJsonLossless(" false ")).toBe(false);
    expect(parseJsonLossless("\t\r\nnull\n")).toBeNull();
    expect(parseJsonLossless('"hi"')).toBe("hi");
    expect(parseJsonLossless("[]")).toEqual([]);
    expect(parseJsonLossless('[1, "a", [true]]')).toEqual([new JsonNumber("1"), "a", [true]]);
    const object = asObject(parseJsonLossless('{ "a" : { "b" : [ ] } , "c":null}'));
    expect(Object.keys(object)).toEqual(["a", "c"]);
    expect(object.c).toBeNull();
  });

  it("keeps number lexemes verbatim", () => {
    const lexemes = ["4.0", "1E+2", "1e-7", "-0", "-0.0", "1e005", "12345678901234567890123"];
    const parsed = parseJsonLossless(`[${lexemes.join(",")}]`);
    expect(parsed).toEqual(lexemes.map((lexeme) => new JsonNumber(lexeme)));
  });

  it("builds null-prototype objects so __proto__ is an ordinary key", () => {
    const object = asObject(
      parseJsonLossless('{"__proto__": {"polluted": true}, "constructor": 1}'),
    );
    expect(Object.getPrototypeOf(object)).toBeNull();
    expect(Object.keys(object)).toEqual(["__proto__", "constructor"]);
    const protoKey = "__proto__";
    expect(asObject(object[protoKey] as JsonValue).polluted).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("lets the last duplicate key win, like Python", () => {
    const object = asObject(parseJsonLossless('{"a": 1, "b": 2, "a": 3}'));
    expect(object.a).toEqual(new JsonNumber("3"));
    expect(Object.keys(object).sort()).toEqual(["a", "b"]);
  });

  it("decodes every escape", () => {
    expect(parseJsonLossless(String.raw`"\" \\ \/ \b \f \n \r \t \u0041\u00e9\u20AC"`)).toBe(
      '" \\ / \b \f \n \r \t Aé€',
    );
  });

  it("recombines escaped surrogate pairs and keeps lone ones", () => {
    expect(parseJsonLossless(String.raw`"\ud83d\ude00"`)).toBe("😀");
    expect(parseJsonLossless(String.raw`"\uD83D\uDE00x"`)).toBe("😀x");
    expect(parseJsonLossless(String.raw`"\ud800"`)).toBe("\ud800");
    expect(parseJsonLossless(String.raw`"\udc00\ud800"`)).toBe("\udc00\ud800");
  });

  it("passes raw non-ASCII text through", () => {
    expect(parseJsonLossless('"😀\u2028\u007f\uffff"')).toBe("😀\u2028\u007f\uffff");
  });

  it.each([
    ["", 0, "end of JSON input"],
    ["   ", 3, "end of JSON input"],
    ["[1,]", 3, 'Unexpected character "]"'],
    ["[1 2]", 3, 'Unexpected character "2"'],
    ['{"a" 1}', 5, 'Unexpected character "1"'],
    ['{"a":1,}', 7, 'Unexpected character "}"'],
    ["{'a':1}", 1, `Unexpected character "'"`],
    ["01", 1, "Unexpected data after the JSON value"],
    ["-", 1, "end of JSON input"],
    ["1.", 2, "end of JSON input"],
    ["1.e5", 2, 'Unexpected character "e"'],
    ["1e", 2, "end of JSON input"],
    ["+1", 0, 'Unexpected character "+"'],
    [".5", 0, 'Unexpected character "."'],
    ["NaN", 0, 'Unexpected character "N"'],
    ["Infinity", 0, 'Unexpected character "I"'],
    ["tru", 3, "end of JSON input"],
    ["nul1", 3, 'Unexpected character "1"'],
    ['"abc', 0, "Unterminated string"],
    ['"a\tb"', 2, "Unexpected character U+0009"],
    ['"\\x"', 2, 'Invalid escape "\\\\x"'],
    ['"\\', 0, "Unterminated string"],
    ['["a", "b', 6, "Unterminated string"],
    ['"\\u12G4"', 5, "Invalid \\u escape"],
    ['"\\u12', 0, "Unterminated string"],
    ["\ufeff{}", 0, "Unexpected character"],
    ["{} {}", 3, "Unexpected data after the JSON value"],
    ["[\u00a0]", 1, "Unexpected character"],
  ])("rejects %j at offset %i", (text, offset, message) => {
    const error = syntaxErrorOf(text);
    expect(error).toBeInstanceOf(SyntaxError);
    expect(error.offset).toBe(offset);
    expect(error.message).toContain(message);
    expect(error.message).toContain(`at offset ${offset}`);
  });

  it("reports line and column", () => {
    const error = syntaxErrorOf('{\n  "a": 1,\n  "b": ?\n}');
    expect(error.line).toBe(3);
    expect(error.column).toBe(8);
    expect(error.message).toBe('Unexpected character "?" at offset 19 (line 3, column 8)');
  });

  it("parses deep nesting without using the call stack", () => {
    const depth = 200_000;
    let value = parseJsonLossless(`${'[{"k":'.repeat(depth)}0${"}]".repeat(depth)}`);
    for (let i = 0; i < depth; i++) {
      if (!Array.isArray(value)) throw new Error(`expected an array at depth ${i}`);
      value = asObject(value[0] as JsonValue).k as JsonValue;
    }
    expect(value).toEqual(new JsonNumber("0"));
    expect(syntaxErrorOf("[".repeat(100_000)).offset).toBe(100_000);
  });
});
