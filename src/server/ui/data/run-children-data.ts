import type { EngineTables } from "../../../engine/engine-tables.ts";
import type { QueueMessageInfo } from "../../../engine/queue/queue.ts";
import { runChildren } from "../../../engine/queue/run-children.ts";
import { typed } from "../../../infra/db/open-database.ts";
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

/** How many messages each run sent. */
async function childCounts(services: ServerServices, runIds: readonly string[]) {
  if (runIds.length === 0) return new Map<string, number>();
  const rows = await typed<EngineTables>(services.runtime.db)
    .selectFrom("tm_run_children")
    .select(["run_id", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("run_id", "in", [...runIds])
    .groupBy("run_id")
    .execute();
  return new Map(rows.map((r) => [r.run_id, Number(r.n)]));
}

/** The children of each run (runs without any are left out of the map). */
export async function childrenOfRuns(
  services: ServerServices,
  runIds: readonly string[],
): Promise<Map<string, ChildrenOfRun>> {
  const { db } = services.runtime;
  // Per run: its first LOOKED_UP children, and how many it has in all.
  const [rows, totals] = await Promise.all([
    Promise.all(runIds.map((id) => runChildren(db, [id], LOOKED_UP))).then((r) => r.flat()),
    childCounts(services, runIds),
  ]);
  const byRun = new Map<string, ChildrenOfRun>();
  const { queue } = services;
  const lookups: Array<Promise<void>> = [];
  // Lookups started per run: at most LOOKED_UP each, all at once.
  const looked = new Map<string, number>();
  for (const row of rows) {
    let entry = byRun.get(row.runId);
    if (!entry) {
      entry = {
        total: 0,
        counts: emptyCounts(),
        messages: [],
        unknown: queue === undefined,
      };
      byRun.set(row.runId, entry);
    }
    entry.total = totals.get(row.runId) ?? 0;
    const started = looked.get(row.runId) ?? 0;
    if (!queue || started >= LOOKED_UP) continue;
    looked.set(row.runId, started + 1);
    const target = entry;
    lookups.push(
      queue.getMessage(row.queue, row.messageId).then((info) => {
        const state = childState(info);
        target.counts[state] += 1;
        target.messages.push({ queue: row.queue, id: row.messageId, state, info });
      }),
    );
  }
  await Promise.all(lookups);
  for (const entry of byRun.values()) {
    entry.messages.sort(
      (a, b) => ORDER.indexOf(a.state) - ORDER.indexOf(b.state) || a.id.localeCompare(b.id),
    );
  }
  return byRun;
}
