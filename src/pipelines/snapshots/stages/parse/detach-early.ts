/**
 * Detaches one empty ArrayBuffer, so that a thread's optimized code is compiled knowing that
 * buffers get detached here.
 *
 * Until some ArrayBuffer of a thread (an isolate) is detached, V8 assumes none ever will be,
 * and code it optimizes relies on that (typed-array accesses without the detached check). The
 * first detach then throws all such code away at once. A parse thread detaches a buffer each
 * time it hands one over (postMessage with a transfer list), the first time after its first
 * batch: by then its hot loops (reading fields, canonical JSON, the key index) had been
 * optimized, and every one of them was deoptimized and compiled again (~20 functions per
 * thread, both threads, in every run). Called first thing on such a thread, the one detach
 * costs nothing and the code is compiled once.
 */
export function detachEarly(): void {
  const buffer = new ArrayBuffer(0);
  structuredClone(buffer, { transfer: [buffer] });
}
