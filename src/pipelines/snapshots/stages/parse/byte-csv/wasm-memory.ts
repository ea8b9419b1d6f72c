/** A WebAssembly memory: its bytes, and growing it by pages (which replaces `buffer`). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/**
 * A new WebAssembly memory of `initial` 64 KiB pages. Node has the WebAssembly JS API; the
 * package's TypeScript lib (ES2023 + Node's types) does not declare it, so it is typed here.
 */
export function newWasmMemory(initial: number): WasmMemory {
  const api = (
    globalThis as unknown as {
      WebAssembly: { Memory: new (descriptor: { initial: number }) => WasmMemory };
    }
  ).WebAssembly;
  return new api.Memory({ initial });
}
