import { randomUUID } from "node:crypto";

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7 (RFC 9562): 48-bit millisecond time, then a 12-bit per-process counter, then
 * random bits. Ids sort by creation time, so ordering by id is FIFO within a process and
 * index inserts stay append-only; pg-boss accepts them as its uuid job ids.
 */
export function newMessageId(nowMs: number = Date.now()): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    // 4096 ids in one millisecond: borrow the next millisecond to stay monotonic.
    lastMs++;
    sequence = 0;
  }
  const time = lastMs.toString(16).padStart(12, "0");
  const random = randomUUID();
  // randomUUID() is xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: keep its variant and random tail.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${sequence.toString(16).padStart(3, "0")}${random.slice(18)}`;
}
