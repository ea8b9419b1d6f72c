/**
 * The end of a CSV file in smaller batches. Batches are cut per chunk read (1 MB); near the end
 * of the file, one worker thread could still be busy with its last megabyte (~60 ms) while the
 * other has nothing left to do, and the run's next step waits for both. Chunks that start in
 * the file's last TAIL_BYTES are fed to the record splitter in TAIL_SLICE_BYTES slices, so the
 * last batches are small and the workers finish nearly together. Where records are cut does
 * not change the output (the splitter takes any chunking).
 */

/** How far from the end chunks are sliced: about two batches per worker of a two-core machine. */
export const TAIL_BYTES = 4 << 20;
/** The slices' size. */
export const TAIL_SLICE_BYTES = 256 << 10;

/**
 * `chunk`, which starts `offset` bytes into a file of `size` bytes, as the pieces to feed:
 * itself, or slices of it when it starts within the last TAIL_BYTES. Views, no copies.
 */
export function tailSlices(
  chunk: Uint8Array,
  offset: number,
  size: number | undefined,
): Uint8Array[] {
  if (size === undefined || size - offset > TAIL_BYTES || chunk.length <= TAIL_SLICE_BYTES) {
    return [chunk];
  }
  const slices: Uint8Array[] = [];
  for (let at = 0; at < chunk.length; at += TAIL_SLICE_BYTES) {
    slices.push(chunk.subarray(at, at + TAIL_SLICE_BYTES));
  }
  return slices;
}
