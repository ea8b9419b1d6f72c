import { CYCLE_BUDGET, type FetchRun } from "./fetch-state.ts";
import { fetchLatestOpened, fetchLatestOthers, fetchMissing, fetchScheduled } from "./phases.ts";

/** How a cycle ended: `restart` says why the next one starts at once. */
export interface CycleOutcome {
  events: number;
  restart?: "high opened event count" | "high event count" | "scheduled backfill";
}

/**
 * One of Ghost's startFetch cycles with a 10,000-event budget: latest opened (restart at once
 * when it used the whole budget), latest others with what is left, missing with what is left
 * then (restart when the three together went over), and the scheduled backfill (restart when
 * it read anything). Errors propagate: the run records them.
 */
export async function runCycle(
  run: FetchRun,
  cycle: number,
  budget = CYCLE_BUDGET,
): Promise<CycleOutcome> {
  const c1 = await fetchLatestOpened(run, cycle, budget);
  if (c1 >= budget) return { events: c1, restart: "high opened event count" };
  const c2 = await fetchLatestOthers(run, cycle, budget - c1);
  const c3 = await fetchMissing(run, cycle, budget - c1 - c2);
  if (c1 + c2 + c3 > budget) return { events: c1 + c2 + c3, restart: "high event count" };
  const c4 = await fetchScheduled(run, cycle, budget - c1 - c2 - c3);
  const events = c1 + c2 + c3 + c4;
  return c4 > 0 ? { events, restart: "scheduled backfill" } : { events };
}
