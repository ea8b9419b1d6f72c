/**
 * Differential test: Tidemark's canonical JSON and content hash against the machine's python3.
 *
 * Values are generated as JSON *text* so that number lexemes (`4.0`, `1E+2`, `1e005`, huge
 * integers) and string escapes are exactly what Python's json.loads sees. All texts go to
 * a single python3 process; a missing python3 fails the test rather than skipping it.
 */
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";
import { contentHashOfJsonText } from "./content-hash.ts";
import { parseJsonLossless } from "./lossless-json.ts";

const SAMPLE_SIZE = 6000;
const SEED = Number(process.env.TIDEMARK_PARITY_SEED ?? Date.now() % 2 ** 31);

// Each stdin line is a JSON array [mode, text]; stdout lines are ASCII-only JSON, so the
// pipe's encoding cannot interfere.
const PYTHON_SCRIPT = String.raw`
import hashlib, json, sys
out = []
for line in sys.stdin.buffer:
    mode, text = json.loads(line)
    try:
        value = json.loads(text)
    except ValueError as error:
        out.append(json.dumps(["reject", str(error)]))
        continue
    if mode == "parse":
        out.append(json.dumps(["accept"]))
        continue
    stable = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    digest = hashlib.sha256(stable.encode("utf-8")).hexdigest()
    out.append(json.dumps([stable, digest]))
sys.stdout.write("\n".join(out) + "\n")
`;

type Mode = "hash" | "parse";

function runPython(lines: [Mode, string][]): unknown[][] {
  const result = spawnSync("python3", ["-c", PYTHON_SCRIPT], {
    input: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (result.error) throw new Error(`python3 could not be run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`python3 failed (${result.status}): ${result.stderr}`);
  return result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown[]);
}

// --- JSON text generators ---------------------------------------------------------------

const whitespace = fc.constantFrom("", "", "", " ", "\n", "\t", "\r\n", "  ");

const codePoint = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x00, max: 0x1f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xd7ff }) },
  // U+E000–U+FFFF vs astral is where UTF-16 order and code point order disagree.
  { weight: 2, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(0x22, 0x5c, 0x2f, 0x2028, 0x2029, 0xfeff, 0xe000, 0x1f600),
  },
);

const SHORT_ESCAPES: Record<number, string> = {
  34: '\\"',
  92: "\\\\",
  47: "\\/",
  8: "\\b",
  12: "\\f",
  10: "\\n",
  13: "\\r",
  9: "\\t",
};

function unicodeEscape(unit: number, upper: boolean): string {
  const hex = unit.toString(16).padStart(4, "0");
  return `\\u${upper ? hex.toUpperCase() : hex}`;
}

// style 0–1: raw where allowed, else the short escape; 2: \u lowercase; 3: \u uppercase
// (astral characters then become escaped surrogate pairs).
function encodeCodePoint(cp: number, style: number): string {
  if (style >= 2) {
    const upper = style === 3;
    const char = String.fromCodePoint(cp);
    let out = "";
    for (let i = 0; i < char.length; i++) out += unicodeEscape(char.charCodeAt(i), upper);
    return out;
  }
  const short = SHORT_ESCAPES[cp];
  if (short !== undefined && (cp !== 0x2f || style === 1)) return short;
  if (cp < 0x20) return unicodeEscape(cp, style === 1);
  return String.fromCodePoint(cp);
}

const stringLiteral = fc
  .array(fc.tuple(codePoint, fc.nat(3)), { maxLength: 12 })
  .map((chars) => `"${chars.map(([cp, style]) => encodeCodePoint(cp, style)).join("")}"`);

const keyLiteral = fc.oneof(
  { weight: 3, arbitrary: stringLiteral },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("a", "b", "__proto__", "constructor", "\uffff", "😀", "\ue000", "", "10", "9")
      .map((key) => JSON.stringify(key)),
  },
);

const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789"), minLength, maxLength });

const integerPart = fc.oneof(
  fc.constant("0"),
  fc.tuple(fc.constantFrom(..."123456789"), digits(0, 30)).map(([head, tail]) => head + tail),
);

// Arbitrary RFC 8259 lexemes: exponents with leading zeros, both `e`/`E`, optional signs,
// long mantissas (correct rounding), and ranges reaching subnormals and overflow.
const constructedNumber = fc
  .record({
    minus: fc.boolean(),
    int: integerPart,
    frac: fc.option(digits(1, 30), { nil: undefined }),
    exp: fc.option(
      fc.record({
        e: fc.constantFrom("e", "E"),
        sign: fc.constantFrom("", "+", "-"),
        zeros: fc.constantFrom("", "", "0", "00"),
        value: fc.oneof(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 400 })),
      }),
      { nil: undefined },
    ),
  })
  .map(({ minus, int, frac, exp }) => {
    let lexeme = (minus ? "-" : "") + int;
    if (frac !== undefined) lexeme += `.${frac}`;
    if (exp !== undefined) lexeme += exp.e + exp.sign + exp.zeros + exp.value;
    return lexeme;
  });

const finiteDouble = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  // Dense around Python's fixed/scientific switch points (1e-4 and 1e16).
  fc.double({ min: 1e-6, max: 1e18, noNaN: true }),
  fc.double({ min: -1e18, max: -1e-6, noNaN: true }),
);

// Random doubles in the forms JS itself prints them.
const doubleLexeme = fc
  .tuple(finiteDouble, fc.nat(4), fc.integer({ min: 1, max: 20 }))
  .map(([value, form, precision]) => {
    switch (form) {
      case 0:
        return value.toString();
      case 1:
        return value.toExponential();
      case 2:
        return value.toExponential(precision);
      case 3:
        return value.toPrecision(precision);
      default:
        return Math.abs(value) < 1e21 ? value.toFixed(precision) : value.toString();
    }
  });

const bigIntegerLexeme = fc
  .bigInt({ min: -(10n ** 60n), max: 10n ** 60n })
  .map((n) => n.toString());

const notableNumber = fc.constantFrom(
  "4.0",
  "1E+2",
  "1e-7",
  "0.00001",
  "0.0001",
  "1e16",
  "1e15",
  "-0.0",
  "-0",
  "0",
  "1e005",
  "1e400",
  "-1e400",
  "1e-400",
  "5e-324",
  "2.2250738585072014e-308",
  "1.7976931348623157e308",
  "9007199254740993",
  "9007199254740993.0",
  "123456789012345678.0",
  "12345678901234567890123",
  "1.0e0",
  "0.1",
  "100",
  "1e22",
  "1e21",
  "1e-4",
  "1e-5",
  "0.00009999999999999999",
  "0.000099999",
  "9999999999999998.0",
  "9999999999999999.0",
  "9999999999999999",
  "-9999999999999998e0",
);

const numberLiteral = fc.oneof(
  { weight: 3, arbitrary: constructedNumber },
  { weight: 3, arbitrary: doubleLexeme },
  { weight: 2, arbitrary: bigIntegerLexeme },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: notableNumber },
);

const scalarLiteral = fc.oneof(
  { weight: 3, arbitrary: stringLiteral },
  { weight: 4, arbitrary: numberLiteral },
  { weight: 1, arbitrary: fc.constantFrom("true", "false", "null") },
);

const { value: jsonText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    { weight: 3, arbitrary: scalarLiteral },
    { weight: 1, arbitrary: tie("array") },
    { weight: 1, arbitrary: tie("object") },
  ),
  array: fc
    .tuple(whitespace, fc.array(fc.tuple(tie("value"), whitespace, whitespace), { maxLength: 6 }))
    .map(([ws, items]) => `[${ws}${items.map(([v, a, b]) => a + v + b).join(",")}]`),
  object: fc
    .tuple(
      whitespace,
      fc.array(fc.tuple(keyLiteral, tie("value"), whitespace, whitespace), { maxLength: 6 }),
    )
    .map(
      ([ws, members]) =>
        `{${ws}${members.map(([k, v, a, b]) => `${a}${k}${b}:${a}${v}${b}`).join(",")}}`,
    ),
}));

const document = fc
  .tuple(whitespace, jsonText, whitespace, fc.nat())
  .map(([a, text, b, cut]) => ({ text: a + text + b, cut }));

// --- the test ------------------------------------------------------------------------

describe("parity with Python's json.dumps + hashlib.sha256", () => {
  it(`matches python3 on ${SAMPLE_SIZE} generated documents (seed ${SEED})`, () => {
    const documents = fc.sample(document, { numRuns: SAMPLE_SIZE, seed: SEED });
    const texts = documents.map((d) => d.text);
    // Truncated copies exercise the parser's rejections: acceptance must agree with Python.
    const truncated = documents.map((d) => d.text.slice(0, d.cut % (d.text.length + 1)));
    const lines: [Mode, string][] = [
      ...texts.map((text): [Mode, string] => ["hash", text]),
      ...truncated.map((text): [Mode, string] => ["parse", text]),
    ];

    const results = runPython(lines);
    expect(results).toHaveLength(lines.length);

    const mismatches: string[] = [];
    let compared = 0;
    texts.forEach((text, i) => {
      const [stable, digest] = results[i] as [string, string];
      if (stable === "reject") {
        mismatches.push(`python rejected ${JSON.stringify(text)}: ${digest}`);
        return;
      }
      const canonical = canonicalJson(parseJsonLossless(text));
      const hash = contentHashOfJsonText(text);
      if (canonical !== stable || hash !== digest) {
        mismatches.push(
          `${JSON.stringify(text)}\n  python: ${JSON.stringify(stable)}\n  ours:   ${JSON.stringify(canonical)}`,
        );
      }
      compared++;
    });

    let accepted = 0;
    let rejected = 0;
    truncated.forEach((text, i) => {
      const pythonAccepts = results[texts.length + i]?.[0] === "accept";
      let weAccept = true;
      try {
        parseJsonLossless(text);
      } catch {
        weAccept = false;
      }
      if (weAccept) accepted++;
      else rejected++;
      if (weAccept !== pythonAccepts) {
        mismatches.push(
          `${JSON.stringify(text)}: python ${pythonAccepts ? "accepts" : "rejects"}, we do not`,
        );
      }
    });

    // Plain-text message: toEqual on strings would escape the unicode past readability.
    expect(mismatches.length, `seed ${SEED}:\n${mismatches.slice(0, 5).join("\n\n")}`).toBe(0);
    expect(compared).toBeGreaterThanOrEqual(5000);
    expect(rejected).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(100);
  });
});
