import { describe } from "vitest";
import { schedulerTests } from "./conformance-tests.ts";
import type { SchedulerWorld } from "./scheduler-world.ts";

export type { SchedulerWorld } from "./scheduler-world.ts";

/**
 * Registers the behaviour every Scheduler engine must show (the `Scheduler` interface's
 * promises): each enabled scheduled job fires at its occurrence, in its time zone, once
 * however many instances run, offset by its jitter (whole seconds in [0, jitter]); disabled,
 * unscheduled and removed jobs stop firing and changed schedules are followed on reload; an
 * occurrence missed while nothing ran is not fired late; a stopped instance fires no more.
 * `world` gives each test a fresh database and engine; engine-specific behaviour (run_once,
 * coalescing, pg-boss's schedule rows) is tested beside each engine.
 */
export function describeSchedulerConformance(
  name: string,
  world: () => Promise<SchedulerWorld>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`Scheduler conformance: ${name}`, () => {
    schedulerTests(world, options.timeoutMs ?? 30_000);
  });
}
