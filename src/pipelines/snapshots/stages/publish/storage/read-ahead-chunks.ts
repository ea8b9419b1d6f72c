import type { FileHandle } from "node:fs/promises";

/**
 * An open file's bytes as chunks on two reused buffers, the next chunk read while the caller
 * works on the current one (hashing, cutting records), so the caller never waits for a read
 * it could have overlapped. A chunk is valid until the next one is requested: only then does a
 * read into its buffer start. No megabyte of garbage per chunk for the GC to find late. The
 * handle is closed at the end, on an error, when the caller stops early, or by `close()`.
 */
export function readAheadChunks(
  handle: FileHandle,
  chunkBytes = 1 << 20,
): { chunks: AsyncIterable<Uint8Array>; close(): void } {
  const buffers = [Buffer.allocUnsafeSlow(chunkBytes), Buffer.allocUnsafeSlow(chunkBytes)];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void handle.close().catch(() => {});
  };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let pending: Promise<{ bytesRead: number }> | undefined;
    try {
      let current = 0;
      pending = handle.read(buffers[0]!, 0, chunkBytes, null);
      for (;;) {
        const { bytesRead } = await pending;
        pending = undefined;
        if (bytesRead === 0) return;
        const chunk = buffers[current]!.subarray(0, bytesRead);
        current ^= 1;
        // Into the buffer of the chunk before this one, which the caller has let go of.
        pending = handle.read(buffers[current]!, 0, chunkBytes, null);
        yield chunk;
      }
    } finally {
      // The read still in flight (the caller stopped early) ends before the handle closes.
      await pending?.catch(() => {});
      close();
    }
  }
  return { chunks: chunks(), close };
}
