/**
 * Canonical JSON text identical to Python's
 * `json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)`.
 *
 * Content hashes must match hashes computed by Python tooling, so every formatting
 * decision here mirrors CPython's C encoder rather than JSON.stringify.
 */
import { JsonNumber } from "./json-value.ts";
import { findLoneSurrogate } from "./lone-surrogate.ts";
import { pythonFloatRepr } from "./python-float-repr.ts";
import { pythonNumberFromLexeme } from "./python-number-lexeme.ts";

// Flush threshold for streaming: big enough to amortize hash updates, small enough that
// the rope being built stays in the young generation.
const CHUNK_LENGTH = 16 * 1024;

// Only code units from U+D800 up can sort differently by UTF-16 unit than by code point.
const HIGH_CODE_UNIT = /[\uD800-\uFFFF]/;

// Key count up to which insertion sort is used.
const SMALL_SORT = 12;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

type PathSegment = string | number;

/** A value cannot be represented as canonical JSON; `path` says where (e.g. `$.items[3]`). */
export class CanonicalJsonError extends TypeError {
  readonly path: string;

  constructor(path: PathSegment[], problem: string) {
    const shown = formatPath(path);
    super(`Cannot encode ${shown} as canonical JSON: ${problem}`);
    this.name = "CanonicalJsonError";
    this.path = shown;
  }
}

/**
 * Canonical JSON of a JSON-like value, byte-for-byte equal to Python's sorted compact dump.
 *
 * JsonNumber keeps Python's lexeme semantics. A JS `number` has lost its lexeme: safe
 * integers print as Python ints (`3`), anything else, including integers beyond 2^53 that
 * cannot be exact, prints as a Python float (`0.5`, `1e+16`). `bigint` prints as an exact int.
 * `undefined` object members are skipped like JSON.stringify; `undefined` elsewhere throws.
 */
export function canonicalJson(value: unknown): string {
  // Typical documents take the recursive fast path; anything it is unsure of (deep nesting,
  // a cycle, a value that cannot be encoded) goes to the writer, which also names the problem.
  const fast = fastCanonical(value, 0);
  if (fast !== undefined) return fast;
  // A single growing string: V8 concatenates into a rope, cheaper than collecting parts.
  return new CanonicalWriter(null).run(value);
}

// Nesting the fast path handles; deeper values (and cycles, which never end) use the writer.
const FAST_DEPTH = 32;

/**
 * The same text as the writer for plain JSON-like values up to FAST_DEPTH levels, written
 * recursively without the writer's frames; undefined whenever the writer should decide.
 */
function fastCanonical(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case "string":
      return findLoneSurrogate(value) >= 0 ? undefined : JSON.stringify(value);
    case "number":
      return Number.isSafeInteger(value) ? String(value) : pythonFloatRepr(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return "null";
  if (value instanceof JsonNumber) return pythonNumberFromLexeme(value.lexeme);
  if (depth >= FAST_DEPTH) return undefined;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const text = item === undefined ? undefined : fastCanonical(item, depth + 1);
      if (text === undefined) return undefined;
      out += i === 0 ? text : `,${text}`;
    }
    return `${out}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const object = value as Record<string, unknown>;
  let out = "{";
  let written = 0;
  for (const key of sortKeys(Object.keys(object))) {
    const member = object[key];
    if (member === undefined) continue;
    const name = keyText(key);
    if (name === undefined) return undefined;
    const text = fastCanonical(member, depth + 1);
    if (text === undefined) return undefined;
    out += `${written++ === 0 ? "" : ","}${name}:${text}`;
  }
  return `${out}}`;
}

/**
 * Stream canonicalJson(value) as consecutive chunks (never splitting a token, so each chunk
 * encodes to UTF-8 on its own); lets hashing avoid materializing one huge string.
 */
export function writeCanonicalJson(value: unknown, onChunk: (chunk: string) => void): void {
  const rest = new CanonicalWriter(onChunk).run(value);
  if (rest.length > 0) onChunk(rest);
}

/** Compare strings by Unicode code point, the order Python's `sorted` uses for `str`. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// At the first differing unit, a surrogate stands for a code point above U+FFFF, so it must
// rank after U+E000–U+FFFF; shifting the two ranges past each other achieves that.
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

// Keys recur across documents (every item has the same 29): each one's JSON text, for keys
// without a unit >= U+D800 (so well-formed, and ordered right by `<`). Bounded, so documents
// keyed by ids cannot grow it without end.
const KEY_TEXTS = new Map<string, string>();
const MAX_KEY_TEXTS = 4096;

/** The key as JSON text, cached; undefined when it holds a lone surrogate. */
function keyText(key: string): string | undefined {
  const cached = KEY_TEXTS.get(key);
  if (cached !== undefined) return cached;
  if (findLoneSurrogate(key) >= 0) return undefined;
  const text = JSON.stringify(key);
  if (KEY_TEXTS.size < MAX_KEY_TEXTS && !HIGH_CODE_UNIT.test(key)) KEY_TEXTS.set(key, text);
  return text;
}

function sortKeys(keys: string[]): string[] {
  // `<` compares UTF-16 units, which equals code point order unless a key holds a unit
  // >= U+D800; only then is the slower comparator needed. Cached keys hold none.
  for (const key of keys) {
    if (!KEY_TEXTS.has(key) && HIGH_CODE_UNIT.test(key)) return keys.sort(compareCodePoints);
  }
  if (keys.length > SMALL_SORT) return keys.sort();
  // Typical API objects have a handful of keys: insertion sort beats the builtin's overhead.
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

function formatPath(path: PathSegment[]): string {
  let out = "$";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  if (value === undefined) return "undefined";
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)
    ?.constructor?.name;
  return name ? `a ${name}` : "a non-plain object";
}

// An open container being written; `index` is the next element or key to visit.
type Frame =
  | { readonly array: readonly unknown[]; readonly keys: null; index: number }
  | {
      readonly object: Record<string, unknown>;
      readonly keys: string[];
      index: number;
      written: number;
    };

// Iterative with an explicit stack, so deep values cannot overflow the JS call stack.
class CanonicalWriter {
  private out = "";
  private readonly stack: Frame[] = [];
  // Containers currently open, to report cycles instead of looping forever.
  private readonly open = new Set<object>();

  constructor(private readonly onChunk: ((chunk: string) => void) | null) {}

  // Returns what was not yet passed to onChunk (everything when there is no onChunk).
  run(root: unknown): string {
    this.write(root);
    const stack = this.stack;
    const onChunk = this.onChunk;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.keys === null) this.stepArray(frame);
      else this.stepObject(frame);
      if (onChunk !== null && this.out.length >= CHUNK_LENGTH) {
        onChunk(this.out);
        this.out = "";
      }
    }
    return this.out;
  }

  private stepArray(frame: Extract<Frame, { keys: null }>): void {
    const { array } = frame;
    if (frame.index >= array.length) {
      this.close(array, "]");
      return;
    }
    if (frame.index > 0) this.out += ",";
    const item = array[frame.index++];
    if (item === undefined) this.fail("undefined is not a JSON value");
    this.write(item);
  }

  private stepObject(frame: Extract<Frame, { keys: string[] }>): void {
    const { object, keys } = frame;
    // Members whose value is undefined are skipped, as JSON.stringify does.
    while (frame.index < keys.length && object[keys[frame.index]!] === undefined) frame.index++;
    if (frame.index >= keys.length) {
      this.close(object, "}");
      return;
    }
    if (frame.written++ > 0) this.out += ",";
    const key = keys[frame.index++]!;
    this.writeString(key);
    this.out += ":";
    this.write(object[key]);
  }

  private close(container: object, bracket: string): void {
    this.out += bracket;
    this.stack.pop();
    this.open.delete(container);
  }

  // Writes a scalar, or writes a container's opening bracket and pushes it on the stack.
  private write(value: unknown): void {
    switch (typeof value) {
      case "string":
        this.writeString(value);
        return;
      case "boolean":
        this.out += value ? "true" : "false";
        return;
      case "number":
        this.out += Number.isSafeInteger(value) ? String(value) : pythonFloatRepr(value);
        return;
      case "bigint":
        this.out += value.toString();
        return;
      case "object":
        if (value === null) this.out += "null";
        else if (value instanceof JsonNumber) this.out += pythonNumberFromLexeme(value.lexeme);
        else this.openContainer(value);
        return;
      default:
        this.fail(`${describe(value)} is not a JSON value`);
    }
  }

  private writeString(value: string): void {
    const index = findLoneSurrogate(value);
    if (index >= 0) {
      const unit = value.charCodeAt(index).toString(16).toUpperCase();
      this.fail(`lone surrogate U+${unit} at index ${index} cannot be encoded as UTF-8`);
    }
    // For well-formed strings JSON.stringify escapes exactly what Python's ensure_ascii=False
    // escapes: `"`, `\`, \b \f \n \r \t, and other U+0000–U+001F as lowercase `\u00xx`.
    this.out += JSON.stringify(value);
  }

  private openContainer(value: object): void {
    if (this.open.has(value)) this.fail("circular reference");
    if (Array.isArray(value)) {
      this.out += "[";
      this.stack.push({ array: value, keys: null, index: 0 });
    } else {
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        this.fail(`${describe(value)} is not a plain object`);
      }
      const object = value as Record<string, unknown>;
      this.out += "{";
      this.stack.push({ object, keys: sortKeys(Object.keys(object)), index: 0, written: 0 });
    }
    this.open.add(value);
  }

  private fail(problem: string): never {
    throw new CanonicalJsonError(this.currentPath(), problem);
  }

  // Rebuilt from the stack only on failure: each frame's last visited element.
  private currentPath(): PathSegment[] {
    return this.stack.map((frame) =>
      frame.keys === null ? frame.index - 1 : frame.keys[frame.index - 1]!,
    );
  }
}
