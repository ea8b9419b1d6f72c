/**
 * The few pieces of the WebAssembly binary format the row-id hasher's module is made of:
 * LEB128 numbers, the instructions it uses (with their opcodes), and a module of one exported
 * function over an imported memory. Written out here rather than through an assembler package:
 * a handful of opcodes, and the generator (sha256x4-code.ts) stays plain TypeScript. The module
 * it makes is kept in sha256x4-wasm.ts (scripts/gen-row-id-wasm.ts writes it; a test checks the
 * two agree).
 */

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  let v = n | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/**
 * Code: bytes in nested lists, operands first (the stack machine's order), flattened once when
 * the module is written (nesting instead of copying keeps generating it linear).
 */
export type Code = ReadonlyArray<number | Code>;

const simd = (op: number, ...imm: number[]): number[] => [0xfd, ...uleb(op), ...imm];
/** A memory argument: alignment exponent and offset. */
const memarg = (align: number, offset: number) => [...uleb(align), ...uleb(offset)];

/** Instructions, each taking its operands' code first. */
export const op = {
  localGet: (i: number): Code => [0x20, ...uleb(i)],
  localSet: (i: number, value: Code): Code => [value, 0x21, ...uleb(i)],
  i32: (n: number): Code => [0x41, ...sleb(n)],
  i32Add: (a: Code, b: Code): Code => [a, b, 0x6a],
  i32Sub: (a: Code, b: Code): Code => [a, b, 0x6b],
  i32Mul: (a: Code, b: Code): Code => [a, b, 0x6c],
  i32Shl: (a: Code, b: Code): Code => [a, b, 0x74],
  i32ShrU: (a: Code, b: Code): Code => [a, b, 0x76],
  i32LtU: (a: Code, b: Code): Code => [a, b, 0x49],
  i32GtU: (a: Code, b: Code): Code => [a, b, 0x4b],
  i32GeU: (a: Code, b: Code): Code => [a, b, 0x4f],
  i32Load: (addr: Code, offset = 0): Code => [addr, 0x28, ...memarg(2, offset)],
  i32Store8: (addr: Code, value: Code, offset = 0): Code => [
    addr,
    value,
    0x3a,
    ...memarg(0, offset),
  ],
  select: (a: Code, b: Code, cond: Code): Code => [a, b, cond, 0x1b],
  memoryCopy: (to: Code, from: Code, n: Code): Code => [to, from, n, 0xfc, 10, 0, 0],
  memoryFill: (to: Code, value: Code, n: Code): Code => [to, value, n, 0xfc, 11, 0],
  /** A block (label 0 inside it: br to its end). */
  block: (...body: Code[]): Code => [0x02, 0x40, ...body, 0x0b],
  /** A loop (label 0 inside it: br to its start). */
  loop: (...body: Code[]): Code => [0x03, 0x40, ...body, 0x0b],
  ifThen: (cond: Code, ...body: Code[]): Code => [cond, 0x04, 0x40, ...body, 0x0b],
  br: (depth: number): Code => [0x0c, ...uleb(depth)],
  brIf: (depth: number, cond: Code): Code => [cond, 0x0d, ...uleb(depth)],
  v128Load: (addr: Code, offset = 0): Code => [addr, ...simd(0x00, ...memarg(4, offset))],
  v128Store: (addr: Code, value: Code, offset = 0): Code => [
    addr,
    value,
    ...simd(0x0b, ...memarg(4, offset)),
  ],
  /** A v128 constant of four 32-bit lanes. */
  i32x4Const: (lanes: readonly number[]): Code =>
    simd(0x0c, ...lanes.flatMap((v) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24])),
  /** A v128 constant of sixteen bytes. */
  i8x16Const: (bytes: readonly number[]): Code => simd(0x0c, ...bytes),
  shuffle: (lanes: readonly number[], a: Code, b: Code): Code => [a, b, ...simd(0x0d, ...lanes)],
  swizzle: (a: Code, indices: Code): Code => [a, indices, ...simd(0x0e)],
  i32x4Splat: (a: Code): Code => [a, ...simd(0x11)],
  i32x4ReplaceLane: (lane: number, v: Code, x: Code): Code => [v, x, ...simd(0x1c, lane)],
  i32x4LtS: (a: Code, b: Code): Code => [a, b, ...simd(0x39)],
  and: (a: Code, b: Code): Code => [a, b, ...simd(0x4e)],
  or: (a: Code, b: Code): Code => [a, b, ...simd(0x50)],
  xor: (a: Code, b: Code): Code => [a, b, ...simd(0x51)],
  /** Bits of a where mask is 1, of b where it is 0. */
  bitselect: (a: Code, b: Code, mask: Code): Code => [a, b, mask, ...simd(0x52)],
  i8x16ShrU: (a: Code, n: number): Code => [a, 0x41, ...sleb(n), ...simd(0x6d)],
  i32x4Shl: (a: Code, n: number): Code => [a, 0x41, ...sleb(n), ...simd(0xab)],
  i32x4ShrU: (a: Code, n: number): Code => [a, 0x41, ...sleb(n), ...simd(0xad)],
  i32x4Add: (a: Code, b: Code): Code => [a, b, ...simd(0xae)],
};

/** The bytes of nested code, in order. */
function flatten(code: Code, out: number[] = []): number[] {
  for (const part of code) {
    if (typeof part === "number") out.push(part);
    else flatten(part, out);
  }
  return out;
}

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, "latin1")];

/**
 * A module importing its memory as `env.memory` and exporting one function `(i32 × params) ->
 * ()` named `fn`, with the given locals and body.
 */
export function moduleBytes(o: {
  fn: string;
  params: number;
  i32Locals: number;
  v128Locals: number;
  body: Code;
}): Uint8Array {
  const I32 = 0x7f;
  const V128 = 0x7b;
  const type = [1, 0x60, ...uleb(o.params), ...Array<number>(o.params).fill(I32), 0];
  const memory = [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1];
  const locals = [2, ...uleb(o.i32Locals), I32, ...uleb(o.v128Locals), V128];
  const fn = [...locals, ...flatten(o.body), 0x0b];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, type),
    ...section(2, memory),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name(o.fn), 0x00, 0]),
    ...section(10, [1, ...uleb(fn.length), ...fn]),
  ]);
}
