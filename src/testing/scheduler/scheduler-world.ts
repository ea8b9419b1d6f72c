import type { Runtime } from "../../engine/runtime/runtime.ts";
import type { FireDispatcher } from "../../engine/scheduler/fire.ts";
import type { Scheduler } from "../../engine/scheduler/scheduler.ts";

/** One fire as a conformance world's dispatcher saw it. */
export interface RecordedFire {
  /** Which open() call made the scheduler that fired (0, 1, …). */
  instance: number;
  job: string;
  occurrence: string;
  fireAt: string;
  /** The schedulers' clock when the fire was dispatched. */
  dispatchedAt: string;
}

/**
 * One engine's scheduler under test, on a fresh database: the conformance tests add jobs to
 * `runtime`, open scheduler instances (as `serve` processes would), let a minute come and
 * check what fired. Each engine brings time about its own way: the embedded scheduler on a
 * manual clock, pg-boss through its real timekeeper.
 */
export interface SchedulerWorld {
  readonly engine: Scheduler["engine"];
  readonly runtime: Runtime;
  /** Every fire dispatched by any instance, in order. */
  readonly fires: RecordedFire[];
  /** Opens one more scheduler instance whose fires are recorded (closed after the test). */
  open(options?: { random?: () => number }): Promise<Scheduler>;
  /** Runs `write` as if `ms` ago: rows it writes (jobs) get that age. */
  backdated(ms: number, write: () => Promise<void>): Promise<void>;
  /** The minute occurrence the next letCome() brings (call it before adding jobs). */
  upcoming(): Promise<Date>;
  /** Lets upcoming()'s minute come and waits until every open instance has handled it. */
  letCome(): Promise<void>;
  /** The jitter offset a fire carries: its fireAt minus when its engine learnt of the occurrence. */
  offsetMs(fire: RecordedFire): number;
}

/** A dispatcher that records each fire into `fires` and reports it queued. */
export function recordingDispatcher(
  runtime: Runtime,
  instance: number,
  fires: RecordedFire[],
): FireDispatcher {
  return async (fire) => {
    fires.push({
      instance,
      job: fire.job.name,
      occurrence: fire.occurrence.toISOString(),
      fireAt: fire.fireAt.toISOString(),
      dispatchedAt: runtime.clock.now().toISOString(),
    });
    return "queued";
  };
}

/** The start of the minute `at` is in. */
export function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000);
}
