import type { QueueMessageInfo } from "../../../engine/queue/queue.ts";
import { runChildren } from "../../../engine/queue/run-children.ts";
import type { ServerServices } from "../../server-services.ts";

/** Children looked up per run at most (the rest are counted as not looked at). */
const LOOKED_UP = 200;

/** Where one child message stands: its queue state, or `gone` once purged or deleted. */
export type ChildState = "waiting" | "retrying" | "active" | "dead" | "completed" | "gone";

/** One queue message a run sent, as it stands now. */
export interface ChildMessage {
  queue: string;
  id: string;
  state: ChildState;
  /** Null when gone. */
  info: QueueMessageInfo | null;
}

/** A run's children, counted by state. */
export interface ChildrenOfRun {
  total: number;
  counts: Record<ChildState, number>;
  /** The first LOOKED_UP, failing ones first. */
  messages: ChildMessage[];
  /** No queue is open in this process: states are unknown. */
  unknown: boolean;
}

const ORDER: ChildState[] = ["dead", "retrying", "active", "waiting", "completed", "gone"];

/** A message's state as the dashboard names it: a waiting message that failed before retries. */
export function childState(info: QueueMessageInfo | null): ChildState {
  if (!info) return "gone";
  if (info.state === "queued") return info.attempts > 0 || info.lastError ? "retrying" : "waiting";
  return info.state;
}

/** True when some child is dead or retrying: the run's work is not all fine. */
export function childrenFailing(c: ChildrenOfRun | undefined): boolean {
  return c !== undefined && c.counts.dead + c.counts.retrying > 0;
}

function emptyCounts(): Record<ChildState, number> {
  return { waiting: 0, retrying: 0, active: 0, dead: 0, completed: 0, gone: 0 };
}

/** The children of each run (runs without any are left out of the map). */
export async function childrenOfRuns(
  services: ServerServices,
  runIds: readonly string[],
): Promise<Map<string, ChildrenOfRun>> {
  const rows = await runChildren(services.runtime.db, runIds, LOOKED_UP * runIds.length);
  const byRun = new Map<string, ChildrenOfRun>();
  const { queue } = services;
  for (const row of rows) {
    let entry = byRun.get(row.runId);
    if (!entry) {
      entry = { total: 0, counts: emptyCounts(), messages: [], unknown: queue === undefined };
      byRun.set(row.runId, entry);
    }
    entry.total += 1;
    if (!queue || entry.messages.length >= LOOKED_UP) continue;
    const info = await queue.getMessage(row.queue, row.messageId);
    const state = childState(info);
    entry.counts[state] += 1;
    entry.messages.push({ queue: row.queue, id: row.messageId, state, info });
  }
  for (const entry of byRun.values()) {
    entry.messages.sort((a, b) => ORDER.indexOf(a.state) - ORDER.indexOf(b.state));
  }
  return byRun;
}
