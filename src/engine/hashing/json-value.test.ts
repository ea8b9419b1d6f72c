import { describe, expect, it } from "vitest";
import { JsonNumber } from "./json-value.ts";

describe("JsonNumber", () => {
  it("keeps the lexeme", () => {
    const n = new JsonNumber("1.50e+3");
    expect(n.lexeme).toBe("1.50e+3");
    expect(String(n)).toBe("1.50e+3");
    expect(n.toNumber()).toBe(1500);
    expect(n.isInteger).toBe(false);
    expect(new JsonNumber("-12").isInteger).toBe(true);
  });

  it.each(["", "01", "+1", "1.", ".5", "1e", "1e+", "NaN", "Infinity", " 1", "0x10", "1_000"])(
    "rejects the non-RFC 8259 lexeme %j",
    (lexeme) => {
      expect(() => new JsonNumber(lexeme)).toThrow(SyntaxError);
    },
  );
});
