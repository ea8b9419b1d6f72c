/**
 * SHA-256 of many short messages, four at a time in the four 32-bit lanes of WebAssembly SIMD
 * (the "multi-buffer" way): `hashBatch(desc, count, scratch)` reads `count` descriptors of three
 * little-endian int32 at `desc` (message address, length, output address) and writes each
 * message's digest as 64 lowercase hex characters at its output address. Every message must fit
 * a lane's scratch once padded (at most MAX_MESSAGE bytes, sha256x4-layout.ts). A last group of
 * fewer than four repeats its last message in the idle lanes (the same digest written twice).
 *
 * Why: a row id is the SHA-256 of a ~100-byte payload, and Node's crypto.hash spends most of
 * its ~0.4 µs per call on the call itself, not on the two blocks it hashes. Tested against
 * node:crypto on every length from 0 to MAX_MESSAGE and on random batches of mixed lengths.
 */
import { DESC_BYTES, LANE_BYTES } from "./sha256x4-layout.ts";
import { type Code, moduleBytes, op } from "./wasm-encoding.ts";

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
const IV = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

// Parameters, then locals: i32 ones first, v128 after (their indices, in declaration order).
const PARAMS = ["desc", "count", "scratch"] as const;
const I32 = ["i", "idx", "off", "len", "p", "s", "maxb", "j"] as const;
const LANES = [0, 1, 2, 3] as const;
const STATE = ["a", "b", "c", "d", "e", "f", "g", "h"] as const;
const V128 = [
  ...STATE,
  ...STATE.map((n) => `o${n}`),
  "t1",
  "t2",
  "mask",
  "blocks",
  "hx",
  "lo",
  ...LANES.map((l) => `v${l}`),
  ...LANES.map((l) => `u${l}`),
  ...Array.from({ length: 16 }, (_, i) => `w${i}`),
];
const index = new Map<string, number>();
for (const n of [
  ...PARAMS,
  ...I32,
  ...LANES.map((l) => `out${l}`),
  ...LANES.map((l) => `nb${l}`),
  ...V128,
])
  index.set(n, index.size);
const I32_LOCALS = I32.length + 8;

const get = (n: string): Code => op.localGet(index.get(n)!);
const set = (n: string, v: Code): Code => op.localSet(index.get(n)!, v);
const c = op.i32;
const splat = (v: number) => op.i32x4Const([v, v, v, v]);
const rotr = (x: Code, n: number) => op.or(op.i32x4ShrU(x, n), op.i32x4Shl(x, 32 - n));
const xor3 = (a: Code, b: Code, d: Code) => op.xor(op.xor(a, b), d);
const add = (...xs: Code[]) => xs.reduce((acc, x) => op.i32x4Add(acc, x));
/** Reverses the bytes of each 32-bit lane (SHA-256 words are big-endian). */
const BSWAP = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
const LOW_PAIRS = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
const HIGH_PAIRS = [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31];
const LOW_HALVES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HIGH_HALVES = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];

/**
 * Transposes four vectors of four words (rows → columns) into `into`: word k of every input
 * ends up in output k.
 */
function transpose(rows: readonly Code[], into: readonly string[]): Code[] {
  const [r0, r1, r2, r3] = rows as [Code, Code, Code, Code];
  return [
    set("u0", op.shuffle(LOW_PAIRS, r0, r1)),
    set("u1", op.shuffle(HIGH_PAIRS, r0, r1)),
    set("u2", op.shuffle(LOW_PAIRS, r2, r3)),
    set("u3", op.shuffle(HIGH_PAIRS, r2, r3)),
    set(into[0]!, op.shuffle(LOW_HALVES, get("u0"), get("u2"))),
    set(into[1]!, op.shuffle(HIGH_HALVES, get("u0"), get("u2"))),
    set(into[2]!, op.shuffle(LOW_HALVES, get("u1"), get("u3"))),
    set(into[3]!, op.shuffle(HIGH_HALVES, get("u1"), get("u3"))),
  ];
}

const laneScratch = (l: number) => op.i32Add(get("scratch"), c(l * LANE_BYTES));

/** Loads lane l's descriptor and pads its message into the lane's scratch. */
function padLane(l: number): Code[] {
  const nb = `nb${l}`;
  const i = op.i32Add(get("i"), c(l));
  return [
    // Lane l hashes message min(i + l, count - 1).
    set("idx", op.select(i, op.i32Sub(get("count"), c(1)), op.i32LtU(i, get("count")))),
    set("p", op.i32Add(get("desc"), op.i32Mul(get("idx"), c(DESC_BYTES)))),
    set("off", op.i32Load(get("p"))),
    set("len", op.i32Load(get("p"), 4)),
    set(`out${l}`, op.i32Load(get("p"), 8)),
    // Blocks: the message, 0x80, zeros, the 64-bit length in bits.
    set(nb, op.i32ShrU(op.i32Add(get("len"), c(72)), c(6))),
    set("s", laneScratch(l)),
    op.memoryCopy(get("s"), get("off"), get("len")),
    op.i32Store8(op.i32Add(get("s"), get("len")), c(0x80)),
    op.memoryFill(
      op.i32Add(op.i32Add(get("s"), get("len")), c(1)),
      c(0),
      op.i32Sub(op.i32Sub(op.i32Shl(get(nb), c(6)), get("len")), c(1)),
    ),
    // The length's high word stays 0 (messages are far below 512 MB).
    set("p", op.i32Add(get("s"), op.i32Sub(op.i32Shl(get(nb), c(6)), c(4)))),
    set("len", op.i32Shl(get("len"), c(3))),
    op.i32Store8(get("p"), op.i32ShrU(get("len"), c(24))),
    op.i32Store8(get("p"), op.i32ShrU(get("len"), c(16)), 1),
    op.i32Store8(get("p"), op.i32ShrU(get("len"), c(8)), 2),
    op.i32Store8(get("p"), get("len"), 3),
    op.ifThen(op.i32GtU(get(nb), get("maxb")), set("maxb", get(nb))),
  ];
}

/** The 16 message words of block j of every lane, as w0..w15 (lane l in lane l). */
function loadBlock(): Code[] {
  const out: Code[] = [];
  for (let q = 0; q < 4; q++) {
    const rows = LANES.map((l) =>
      op.swizzle(
        op.v128Load(op.i32Add(laneScratch(l), op.i32Shl(get("j"), c(6))), q * 16),
        op.i8x16Const(BSWAP),
      ),
    );
    LANES.forEach((l) => {
      out.push(set(`v${l}`, rows[l]!));
    });
    out.push(
      ...transpose(
        LANES.map((l) => get(`v${l}`)),
        [0, 1, 2, 3].map((k) => `w${q * 4 + k}`),
      ),
    );
  }
  return out;
}

/** The 64 rounds, unrolled; the working variables' roles rotate instead of being moved. */
function rounds(): Code[] {
  const out: Code[] = [];
  let r: string[] = [...STATE];
  for (let t = 0; t < 64; t++) {
    const wi = `w${t % 16}`;
    if (t >= 16) {
      const w15 = get(`w${(t - 15) % 16}`);
      const w2 = get(`w${(t - 2) % 16}`);
      const s0 = xor3(rotr(w15, 7), rotr(w15, 18), op.i32x4ShrU(w15, 3));
      const s1 = xor3(rotr(w2, 17), rotr(w2, 19), op.i32x4ShrU(w2, 10));
      out.push(set(wi, add(get(wi), s0, get(`w${(t - 7) % 16}`), s1)));
    }
    const [a, b, cc, d, e, f, g, h] = r.map(get) as [
      Code,
      Code,
      Code,
      Code,
      Code,
      Code,
      Code,
      Code,
    ];
    const sigma1 = xor3(rotr(e, 6), rotr(e, 11), rotr(e, 25));
    out.push(set("t1", add(h, sigma1, op.bitselect(f, g, e), splat(K[t]!), get(wi))));
    const sigma0 = xor3(rotr(a, 2), rotr(a, 13), rotr(a, 22));
    out.push(set("t2", op.i32x4Add(sigma0, op.bitselect(cc, a, op.xor(a, b)))));
    // New e = d + t1 (into d's variable), new a = t1 + t2 (into h's).
    out.push(set(r[3]!, op.i32x4Add(d, get("t1"))));
    out.push(set(r[7]!, op.i32x4Add(get("t1"), get("t2"))));
    r = [r[7]!, r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, r[5]!, r[6]!];
  }
  return out;
}

const HEX = [...Buffer.from("0123456789abcdef", "latin1")];
const NIBBLE = Array<number>(16).fill(15);
const INTERLEAVE_LOW = [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23];
const INTERLEAVE_HIGH = [8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31];

/** Writes each lane's digest as hex at its output address. */
function writeDigests(): Code[] {
  const out: Code[] = [];
  for (const [half, quad] of [
    [0, ["a", "b", "c", "d"]],
    [1, ["e", "f", "g", "h"]],
  ] as const) {
    // Lane l's four words of this half, into v0..v3.
    out.push(
      ...transpose(
        quad.map((n) => get(n)),
        LANES.map((l) => `v${l}`),
      ),
    );
    for (const l of LANES) {
      out.push(set("hx", op.swizzle(get(`v${l}`), op.i8x16Const(BSWAP))));
      out.push(set("lo", op.swizzle(op.i8x16Const(HEX), op.and(get("hx"), op.i8x16Const(NIBBLE)))));
      out.push(set("hx", op.swizzle(op.i8x16Const(HEX), op.i8x16ShrU(get("hx"), 4))));
      const to = get(`out${l}`);
      out.push(op.v128Store(to, op.shuffle(INTERLEAVE_LOW, get("hx"), get("lo")), half * 32));
      out.push(op.v128Store(to, op.shuffle(INTERLEAVE_HIGH, get("hx"), get("lo")), half * 32 + 16));
    }
  }
  return out;
}

/** One group of four messages. */
function group(): Code[] {
  const blocks = op.i32x4ReplaceLane(
    3,
    op.i32x4ReplaceLane(
      2,
      op.i32x4ReplaceLane(1, op.i32x4Splat(get("nb0")), get("nb1")),
      get("nb2"),
    ),
    get("nb3"),
  );
  const block = op.loop(
    ...loadBlock(),
    ...STATE.map((n) => set(`o${n}`, get(n))),
    ...rounds(),
    // Lanes whose message has no block j keep their state.
    set("mask", op.i32x4LtS(op.i32x4Splat(get("j")), get("blocks"))),
    ...STATE.map((n) =>
      set(n, op.bitselect(op.i32x4Add(get(`o${n}`), get(n)), get(`o${n}`), get("mask"))),
    ),
    set("j", op.i32Add(get("j"), c(1))),
    op.brIf(0, op.i32LtU(get("j"), get("maxb"))),
  );
  return [
    set("maxb", c(0)),
    ...LANES.flatMap(padLane),
    set("blocks", blocks),
    ...STATE.map((n, k) => set(n, splat(IV[k]!))),
    set("j", c(0)),
    block,
    ...writeDigests(),
  ];
}

/** The module's bytes. */
export function sha256x4Module(): Uint8Array {
  const body = op.block(
    op.loop(
      op.brIf(1, op.i32GeU(get("i"), get("count"))),
      ...group(),
      set("i", op.i32Add(get("i"), c(4))),
      op.br(0),
    ),
  );
  return moduleBytes({
    fn: "hashBatch",
    params: PARAMS.length,
    i32Locals: I32_LOCALS,
    v128Locals: V128.length,
    body,
  });
}
