import { stringify } from "yaml";
import type { JobRecord } from "../../engine/jobs/job-repo.ts";
import { demoDisabledReason } from "../../infra/demo/demo-folder.ts";
import { ago, fromNow } from "../output/relative-time.ts";
import type { CliSession } from "../session.ts";

/** `disabledReason` in `job ls --json` / `job show --json`, when there is one. */
export function withReason(reason: string | undefined): { disabledReason?: string } {
  return reason === undefined ? {} : { disabledReason: reason };
}

function enabledCell(dataDir: string, job: JobRecord): string {
  if (job.enabled) return "yes";
  return demoDisabledReason(dataDir, job) ? "no (demo)" : "no";
}

/** `job show`: one job, field by field. */
export function describeJob(session: CliSession, job: JobRecord, dataDir: string): void {
  const reason = demoDisabledReason(dataDir, job);
  session.print(`name:      ${job.name}`);
  session.print(`type:      ${job.type}`);
  session.print(`schedule:  ${job.schedule ?? "(none: runs only when asked)"}`);
  session.print(`timezone:  ${job.timezone}`);
  if (job.jitter) session.print(`jitter:    up to ${job.jitter}s after each occurrence`);
  session.print(`enabled:   ${job.enabled ? "yes" : "no"}${reason ? ` (${reason})` : ""}`);
  session.print(`created:   ${job.createdAt}`);
  session.print(`updated:   ${job.updatedAt}`);
  session.print("params:");
  session.print(
    stringify(job.params)
      .trimEnd()
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n"),
  );
}

/** `job ls`: the jobs table, then when each fires next and how its last run went. */
export async function listJobs(session: CliSession, json: boolean): Promise<void> {
  const runtime = await session.runtime();
  const [{ listJobOverviews }, { runAsOfNow }] = await Promise.all([
    import("../../engine/runs/job-overview.ts"),
    import("../../engine/runs/run-liveness.ts"),
  ]);
  const now = runtime.clock.now();
  // As `runs ls` does: a run whose process died shows abandoned, and the listing writes nothing.
  const overviews = await Promise.all(
    (await listJobOverviews(runtime.db, now)).map(async (o) => ({
      ...o,
      lastRun: o.lastRun && (await runAsOfNow(runtime, o.lastRun)),
    })),
  );
  const dataDir = runtime.config.dataDir;
  if (json) {
    return session.printJson(
      overviews.map(({ job, nextOccurrenceAt, lastRun }) => ({
        ...job,
        ...withReason(demoDisabledReason(dataDir, job)),
        nextOccurrenceAt,
        lastRun: lastRun && {
          runId: lastRun.runId,
          status: lastRun.status,
          startedAt: lastRun.startedAt,
          finishedAt: lastRun.finishedAt,
          error: lastRun.error,
        },
      })),
    );
  }
  if (overviews.length === 0) {
    return session.print("No jobs. Add one with: tidemark job add <name> --type <type>");
  }
  const jobs = overviews.map((o) => o.job);
  session.printTable(
    ["NAME", "TYPE", "SCHEDULE", "TZ", "ENABLED"],
    jobs.map((j) => [j.name, j.type, j.schedule, j.timezone, enabledCell(dataDir, j)]),
  );
  const reason = jobs.map((j) => demoDisabledReason(dataDir, j)).find((r) => r !== undefined);
  if (reason) session.print(`(demo) = ${reason}`);
  session.print();
  session.printTable(
    ["NAME", "NEXT FIRE", "LAST RUN", "AGE"],
    overviews.map(({ job, nextOccurrenceAt: next, lastRun: last }) => [
      job.name,
      next
        ? `${next.replace(/\.\d{3}Z$/, "Z")} (${fromNow(next, now)})`
        : job.schedule === null
          ? "- (no schedule)"
          : "- (disabled)",
      last ? last.status : "- (never ran)",
      last ? ago(last.startedAt, now) : "-",
    ]),
  );
}
