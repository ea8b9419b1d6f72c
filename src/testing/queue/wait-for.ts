import { setTimeout as sleep } from "node:timers/promises";
import type { MessageState, Queue, QueueMessageInfo } from "../../engine/queue/queue.ts";

type Falsy = undefined | null | false | "";

/** Polls until check() returns a value other than undefined/null/false/"", or throws after timeoutMs. */
export async function waitFor<T>(
  what: string,
  check: () => Falsy | T | Promise<Falsy | T>,
  timeoutMs = 15_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false && value !== "") return value as T;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Polls until message `id` of `queue` is in `state`; resolves its info. */
export function waitForState(
  q: Pick<Queue, "getMessage">,
  queue: string,
  id: string,
  state: MessageState,
  timeoutMs?: number,
): Promise<QueueMessageInfo> {
  return waitFor(
    `message ${id} ${state}`,
    async () => {
      const m = await q.getMessage(queue, id);
      return m?.state === state && m;
    },
    timeoutMs,
  );
}
