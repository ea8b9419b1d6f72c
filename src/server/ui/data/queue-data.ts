import type { Queue, QueueMessageInfo, QueueStats } from "../../../engine/queue/queue.ts";
import type { ServerServices } from "../../server-services.ts";
import { knownQueues } from "./dashboard-data.ts";
import { childState } from "./run-children-data.ts";

/** Messages listed per queue on the queue page (newest first). */
export const MESSAGES_SHOWN = 50;
/** Waiting messages read to count the retrying ones among them. */
const RETRY_SCAN = 1000;

/** One queue's figures and its newest messages. */
export interface QueueView {
  stats: QueueStats;
  /** Waiting without a failure yet. */
  waiting: number;
  /** Waiting for a retry after a failure (counted among the first RETRY_SCAN waiting). */
  retrying: number;
  messages: QueueMessageInfo[];
}

/** Every known queue (empty ones included) with its figures and newest messages. */
export async function queueViews(services: ServerServices, queue: Queue): Promise<QueueView[]> {
  const byName = new Map((await queue.stats()).map((s) => [s.queue, s]));
  const names = [...new Set([...knownQueues(services), ...byName.keys()])];
  const empty = { queued: 0, active: 0, deadLettered: 0, oldestQueuedAgeSeconds: 0 };
  return Promise.all(
    names.map(async (name) => {
      const stats = byName.get(name) ?? { queue: name, ...empty };
      const live = stats.queued + stats.active + stats.deadLettered > 0;
      const waitingList =
        stats.queued > 0 ? await queue.messages(name, { state: "queued", limit: RETRY_SCAN }) : [];
      const retrying = waitingList.filter((m) => childState(m) === "retrying").length;
      return {
        stats,
        waiting: stats.queued - retrying,
        retrying,
        messages: live ? await queue.messages(name, { limit: MESSAGES_SHOWN }) : [],
      };
    }),
  );
}
