import { JobService } from "../../engine/jobs/job-service.ts";
import type { SchedulerWorld } from "./scheduler-world.ts";

/** Every minute: each letCome() brings one occurrence. */
export const EVERY_MINUTE = "* * * * *";

/** Adds an enabled every-minute job (UTC) with the given overrides. */
export async function addJob(
  w: SchedulerWorld,
  name: string,
  over: Partial<{
    schedule: string | null;
    timezone: string;
    enabled: boolean;
    jitter: number;
  }> = {},
): Promise<void> {
  const { runtime: rt } = w;
  await new JobService(rt.db, rt.registry, rt.clock).add({
    name,
    type: "test.echo",
    params: { message: name },
    schedule: EVERY_MINUTE,
    timezone: "UTC",
    enabled: true,
    ...over,
  });
}

/** The jobs the world's schedulers fired, sorted. */
export function firedJobs(w: SchedulerWorld): string[] {
  return w.fires.map((f) => f.job).sort();
}

/** A daily cron at the wall-clock time `at` shows in `timezone` (`m h * * *`). */
export function dailyAt(at: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    hour: "numeric",
    minute: "numeric",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return `${part("minute")} ${part("hour")} * * *`;
}
