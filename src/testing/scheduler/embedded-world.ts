import { onTestFinished } from "vitest";
import type { Clock } from "../../engine/clock/clock.ts";
import { openQueue } from "../../engine/queue/open-queue.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import { createScheduler } from "../../engine/scheduler/create-scheduler.ts";
import { EmbeddedScheduler } from "../../engine/scheduler/embedded-scheduler.ts";
import type { Scheduler } from "../../engine/scheduler/scheduler.ts";
import {
  minuteOf,
  type RecordedFire,
  recordingDispatcher,
  type SchedulerWorld,
} from "./scheduler-world.ts";

/** A clock the world can move (ManualClock). */
export interface SettableClock extends Clock {
  set(time: Date | string): void;
}

/**
 * The embedded scheduler's world: instances share the runtime's database (so
 * `tm_schedule_fires` is what keeps them from firing twice) and its manual clock; a minute
 * comes by moving the clock 30 s past it and ticking every instance at once.
 */
export async function embeddedWorld(
  runtime: Runtime,
  clock: SettableClock,
): Promise<SchedulerWorld> {
  const queue = await openQueue(runtime);
  const instances: EmbeddedScheduler[] = [];
  const fires: RecordedFire[] = [];
  onTestFinished(async () => {
    await Promise.all(instances.map((s) => s.stop(0)));
    await queue.close();
  });
  const upcoming = () => new Date(minuteOf(clock.now()).getTime() + 60_000);
  return {
    engine: "embedded",
    runtime,
    fires,
    async open(options = {}): Promise<Scheduler> {
      const scheduler = createScheduler({
        runtime,
        queue,
        dispatch: recordingDispatcher(runtime, instances.length, fires),
        settings: runtime.config.scheduler,
        random: options.random,
      });
      if (!(scheduler instanceof EmbeddedScheduler)) throw new Error("expected the embedded one");
      instances.push(scheduler);
      return scheduler;
    },
    async backdated(ms, write) {
      const now = clock.now();
      clock.set(new Date(now.getTime() - ms));
      try {
        await write();
      } finally {
        clock.set(now);
      }
    },
    async upcoming() {
      return upcoming();
    },
    async letCome() {
      clock.set(new Date(upcoming().getTime() + 30_000));
      await Promise.all(instances.map((s) => s.tick()));
      await Promise.all(instances.map((s) => s.settle()));
    },
    offsetMs(fire) {
      return Date.parse(fire.fireAt) - Date.parse(fire.occurrence);
    },
  };
}
