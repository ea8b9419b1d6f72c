/**
 * Row ids hashed in batches (see sha256x4-code.ts): a batch processor's facts buffer lives in
 * WebAssembly memory, each fast-path row queues its payload's place and where its id goes, and
 * one call hashes all queued payloads in place and writes their hex ids into the lines. One
 * Node crypto.hash per row cost ~0.4 µs, mostly the call itself; the batch is about half that
 * per row. Where WebAssembly SIMD is missing, `create` gives undefined and rows hash one by one.
 */
import { GrowableBytes } from "../../../publish/artifacts/memory-sinks.ts";
import type { WasmMemory } from "../wasm-memory.ts";
import { DESC_BYTES, MAX_MESSAGE, SCRATCH_BYTES } from "./sha256x4-layout.ts";
import { SHA256X4_WASM } from "./sha256x4-wasm.ts";

const PAGE = 1 << 16;
/** Rows queued before they must be hashed (the descriptors fill the space up to the facts). */
const CAPACITY = 8192;
/** Where the facts start: after the lanes' scratch and two sets of descriptors. */
const FACTS_BASE = 256 << 10;
/** Descriptors as queued, then (from here, in int32s) grouped by block count for the hash. */
const GROUPED = (CAPACITY * DESC_BYTES) / 4;
/** SHA-256 blocks of a message of `length` bytes (with its padding). */
const blocksOf = (length: number) => (length + 72) >> 6;

/**
 * The part of the WebAssembly JS API used here. Node has all of it; the package's TypeScript
 * lib (ES2023 + Node's types) does not declare it, so it is typed here.
 */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
    imports: { env: { memory: WasmMemory } },
  ) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** The compiled module, once per thread; null where it does not compile (no SIMD). */
let compiled: object | null | undefined;

function rowIdModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(SHA256X4_WASM, "base64")) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** A GrowableBytes whose bytes are in a WebAssembly memory from FACTS_BASE on. */
class WasmBytes extends GrowableBytes {
  constructor(
    private readonly memory: WasmMemory,
    initial: number,
  ) {
    super(0);
    this.buf = Buffer.from(memory.buffer, FACTS_BASE, initial);
  }

  /** Grows the memory (the bytes stay where they are; earlier views of it become empty). */
  override ensure(n: number): void {
    const need = this.used + n;
    if (need <= this.buf.length) return;
    const size = Math.max(need, this.buf.length * 2);
    const missing = FACTS_BASE + size - this.memory.buffer.byteLength;
    if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE));
    this.buf = Buffer.from(this.memory.buffer, FACTS_BASE, size);
  }
}

/** The longest payload a batch takes; longer ones are hashed on their own. */
export const MAX_BATCHED_PAYLOAD = MAX_MESSAGE;

/*
 * Grouping the n descriptors of d (start, length, id offset) by their payloads' block counts,
 * into d[GROUPED…]: one loop per function, with nothing after it, for the reason copyRowIds
 * (copy-row-ids.ts) gives. As one function (in run()), the code after its first loop
 * deoptimized on every call.
 */

/** groups[b] = how many payloads take b blocks. */
function countByBlocks(d: Int32Array, n: number, groups: Int32Array): void {
  groups.fill(0);
  for (let i = 0; i < n; i++) groups[blocksOf(d[i * 3 + 1]!)]!++;
}

/** groups[b] = where the descriptors of b blocks start (from the counts). */
function groupStarts(groups: Int32Array): void {
  for (let b = 0, at = GROUPED; b < groups.length; b++) {
    const size = groups[b]!;
    groups[b] = at;
    at += size * 3;
  }
}

/** Copies each descriptor to its group's next place. */
function placeInGroups(d: Int32Array, n: number, groups: Int32Array): void {
  for (let i = 0; i < n * 3; i += 3) {
    const o = groups[blocksOf(d[i + 1]!)]!;
    groups[blocksOf(d[i + 1]!)] = o + 3;
    d[o] = d[i]!;
    d[o + 1] = d[i + 1]!;
    d[o + 2] = d[i + 2]!;
  }
}

/** Queued row ids of one facts buffer, hashed together. */
export class RowIdBatch {
  readonly #memory: WasmMemory;
  readonly #hash: (desc: number, count: number, scratch: number) => void;
  #desc: Int32Array;
  #count = 0;
  /** Per block count: how many, then where its group starts. */
  readonly #groups = new Int32Array(blocksOf(MAX_MESSAGE) + 1);

  /** A batch with its facts buffer (`initial` bytes to start), or undefined without SIMD. */
  static create(initial: number): RowIdBatch | undefined {
    const module = rowIdModule();
    return module ? new RowIdBatch(module, initial) : undefined;
  }

  /** The facts buffer: payloads are queued by their offsets in it. */
  readonly facts: GrowableBytes;

  private constructor(module: object, initial: number) {
    this.#memory = new wasm!.Memory({ initial: Math.ceil((FACTS_BASE + initial) / PAGE) });
    const instance = new wasm!.Instance(module, { env: { memory: this.#memory } });
    this.#hash = instance.exports.hashBatch as (d: number, c: number, s: number) => void;
    this.#desc = this.#descriptors();
    this.facts = new WasmBytes(this.#memory, initial);
  }

  #descriptors(): Int32Array {
    return new Int32Array(this.#memory.buffer, SCRATCH_BYTES, 2 * GROUPED);
  }

  /** Rows queued at most before run(). */
  readonly capacity = CAPACITY;

  /** True when no more rows can be queued before run(). */
  get full(): boolean {
    return this.#count === CAPACITY;
  }

  /**
   * Queues the payload at facts[start, start + length) (at most MAX_BATCHED_PAYLOAD bytes); its
   * id, 64 hex characters, will be written at facts[idAt]. Not when full.
   */
  queue(start: number, length: number, idAt: number): void {
    // A grown memory leaves the old view empty.
    if (this.#desc.length === 0) this.#desc = this.#descriptors();
    const d = this.#desc;
    const i = this.#count++ * 3;
    d[i] = FACTS_BASE + start;
    d[i + 1] = length;
    d[i + 2] = FACTS_BASE + idAt;
  }

  /** Forgets the queued payloads. */
  clear(): void {
    this.#count = 0;
  }

  /**
   * Hashes every queued payload, writing each id into its line. The four lanes of a group hash
   * as many blocks as its longest message, so messages of equal block counts go together (two
   * and three blocks alternate in a typical file: mixed, most groups hashed three).
   */
  run(): void {
    const n = this.#count;
    if (n === 0) return;
    if (this.#desc.length === 0) this.#desc = this.#descriptors();
    countByBlocks(this.#desc, n, this.#groups);
    groupStarts(this.#groups);
    placeInGroups(this.#desc, n, this.#groups);
    this.#hash(SCRATCH_BYTES + GROUPED * 4, n, 0);
    this.#count = 0;
  }
}
