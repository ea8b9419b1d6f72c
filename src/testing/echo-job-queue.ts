import { onTestFinished } from "vitest";
import type { Clock } from "../engine/clock/clock.ts";
import type { JobRecord } from "../engine/jobs/job-repo.ts";
import { JobService } from "../engine/jobs/job-service.ts";
import { openQueue } from "../engine/queue/open-queue.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";
import type { DialectHarness } from "./dialects.ts";
import { openTestRuntime } from "./test-runtime.ts";

/** Stores a test.echo job (`message` "m", no schedule, enabled) and returns it as stored. */
export async function addEchoJob(
  runtime: Runtime,
  name: string,
  params: Record<string, unknown> = { message: "m" },
): Promise<JobRecord> {
  const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
  await jobs.add({
    name,
    type: "test.echo",
    params,
    schedule: null,
    timezone: "UTC",
    enabled: true,
  });
  return jobs.get(name);
}

/** A test runtime and its queue, with stored job `j` (test.echo) to request runs of. */
export async function openEchoJobQueue(h: DialectHarness, options: { clock?: Clock } = {}) {
  const rt = await openTestRuntime(h, options);
  const queue = await openQueue(rt);
  onTestFinished(() => queue.close());
  return { rt, queue, job: await addEchoJob(rt, "j") };
}
