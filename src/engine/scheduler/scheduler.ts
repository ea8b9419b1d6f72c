import type { SchedulerSettings } from "../../infra/config/load-config.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { Fire, FireDispatcher, FireOutcome } from "./fire.ts";

/**
 * What `tidemark serve` needs of a scheduler, whichever engine keeps the schedules: fire every
 * enabled scheduled job at its cron occurrences (in the job's time zone) plus a per-process
 * jitter, once per occurrence however many processes run, never an occurrence missed while
 * none ran (misfire `skip`; the embedded engine can also `run_once`), and follow jobs added,
 * changed, disabled and removed. `describeSchedulerConformance` (src/testing/scheduler/) holds both engines to it.
 */
export interface Scheduler {
  /** `embedded` (croner + `tm_schedule_fires`) or `pg-boss` (pg-boss's schedules). */
  readonly engine: "embedded" | "pg-boss";
  /** Re-reads the jobs now (start() does it too, and then every reload period). */
  reload(): Promise<void>;
  /** Reads the jobs and starts firing; resolves once the first read is done. */
  start(): Promise<void>;
  /**
   * Stops firing, then waits up to graceMs (default 10 s) for fires still being dispatched;
   * after that their signal aborts them. Firing does not resume.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Construction options both schedulers take. */
export interface SchedulerOptions {
  runtime: Runtime;
  /** What a fire does (queue a run request, or run inline). */
  dispatch: FireDispatcher;
  settings?: SchedulerSettings;
  /** Jitter draws, in [0, 1) (default Math.random). */
  random?: () => number;
  /** Told about every fire's outcome (metrics). */
  onOutcome?: (fire: Fire, outcome: FireOutcome) => void;
}
