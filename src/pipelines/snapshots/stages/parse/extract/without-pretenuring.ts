import v8 from "node:v8";

/** XLSX reads under way: the flag is turned back on when the last one ends. */
let reads = 0;

/**
 * Runs an XLSX read with V8's allocation-site pretenuring off. With it on, exceljs's streaming
 * reader falls, at random from run to run, into a state where V8 has chosen to allocate some
 * of its short-lived per-row objects straight in the old generation: garbage there keeps young
 * objects alive through every young-generation collection until the next full one, so each
 * collection copies ~2 MB instead of next to nothing. Measured on a bare exceljs read of a
 * 200k-row workbook: collections 440–830 ms and ~290 MB peak in that state, 150–290 ms and
 * ~165 MB in the other; with pretenuring off, the fast state every time. The flag is
 * process-wide (V8 has no per-thread one; it is read at each collection, so turning it on and
 * off at run time takes effect), and only steers where objects are first allocated.
 */
export async function withoutPretenuring<T>(read: () => Promise<T>): Promise<T> {
  if (reads++ === 0) v8.setFlagsFromString("--no-allocation-site-pretenuring");
  try {
    return await read();
  } finally {
    if (--reads === 0) v8.setFlagsFromString("--allocation-site-pretenuring");
  }
}
