import type { EngineTables } from "../../../engine/engine-tables.ts";
import type { QueueStats } from "../../../engine/queue/queue.ts";
import { runAsOfNow } from "../../../engine/runs/run-liveness.ts";
import { type RunRecord, RunRepo } from "../../../engine/runs/run-repo.ts";
import { typed } from "../../../infra/db/open-database.ts";
import type { ServerServices } from "../../server-services.ts";
import { shortDuration } from "../format.ts";
import type { JobHealth } from "./overview-data.ts";

/** A queue whose oldest deliverable message waited this long has no worker taking it. */
export const QUEUE_STUCK_AFTER_S = 5 * 60;
/** A run is overdue past this many times its job's usual (median) duration… */
const OVERDUE_FACTOR = 3;
/** …and at least this long. */
const OVERDUE_MIN_MS = 60_000;
/** Finished runs a job's usual duration is taken from. */
const USUAL_OF = 10;

/** One thing that looks stuck, with a link to where to look. */
export interface Warning {
  text: string;
  href: string;
}

/** The median duration (ms) of a job's last succeeded runs; undefined with fewer than 3. */
export async function usualDurationMs(services: ServerServices, jobName: string) {
  const runs = await new RunRepo(services.runtime.db).list({
    jobName,
    status: "succeeded",
    limit: USUAL_OF,
  });
  const ms = runs
    .filter((r) => r.finishedAt)
    .map((r) => Date.parse(r.finishedAt!) - Date.parse(r.startedAt))
    .sort((a, b) => a - b);
  return ms.length < 3 ? undefined : ms[Math.floor(ms.length / 2)];
}

/** Running runs past their job's usual duration, and running runs whose lease stopped beating. */
async function runWarnings(services: ServerServices): Promise<Warning[]> {
  const { runtime } = services;
  const now = runtime.clock.now().getTime();
  const stored = await new RunRepo(runtime.db).list({ status: "running", limit: 200 });
  const running = (await Promise.all(stored.map((r) => runAsOfNow(runtime, r)))).filter(
    (r) => r.status === "running",
  );
  const out: Warning[] = [];
  for (const run of running) {
    const href = `/ui/runs/${encodeURIComponent(run.runId)}`;
    const took = now - Date.parse(run.startedAt);
    const usual = await usualDurationMs(services, run.jobName);
    if (usual !== undefined && took > Math.max(usual * OVERDUE_FACTOR, OVERDUE_MIN_MS)) {
      out.push({
        text: `Run ${run.runId} of ${run.jobName} has been running for ${shortDuration(took)}; it usually takes ${shortDuration(usual)}.`,
        href,
      });
    }
    const beat = await staleLease(services, run, now);
    if (beat) out.push({ text: beat, href });
  }
  return out;
}

/** A lease renewed every third of its time to live that missed more than one renewal. */
async function staleLease(services: ServerServices, run: RunRecord, now: number) {
  const lease = await typed<EngineTables>(services.runtime.db)
    .selectFrom("tm_leases")
    .selectAll()
    .where("key", "=", run.leaseKey)
    .executeTakeFirst();
  if (!lease || lease.holder !== run.runId) return undefined;
  const beat = Date.parse(lease.heartbeat_at);
  const ttl = Date.parse(lease.expires_at) - beat;
  if (ttl <= 0 || now - beat <= (ttl * 2) / 3) return undefined;
  return `The lease ${run.leaseKey} of run ${run.runId} has had no heartbeat for ${shortDuration(now - beat)} (it expires in ${shortDuration(Date.parse(lease.expires_at) - now)}): is its process frozen?`;
}

/** Everything that looks stuck now: late schedules, unserved queues, overdue runs, silent leases. */
export async function stuckWarnings(
  services: ServerServices,
  jobs: readonly JobHealth[],
  queues: readonly QueueStats[],
): Promise<Warning[]> {
  const now = services.runtime.clock.now();
  const late = jobs
    .filter((j) => j.lateSince)
    .map((j) => ({
      text: `${j.job.name} was due ${shortDuration(now.getTime() - Date.parse(j.lateSince!))} ago (${j.lateSince!.slice(0, 16).replace("T", " ")} UTC) and has not started: is a scheduler running (tidemark serve or tidemark scheduler)?`,
      href: `/ui/jobs/${encodeURIComponent(j.job.name)}`,
    }));
  const unserved = queues
    .filter((q) => q.queued > 0 && q.oldestQueuedAgeSeconds > QUEUE_STUCK_AFTER_S)
    .map((q) => ({
      text: `Queue ${q.queue}: the oldest message has waited ${shortDuration(q.oldestQueuedAgeSeconds * 1000)} for a worker: is a worker running (tidemark serve or tidemark worker)?`,
      href: `/ui/queue#queue-${q.queue}`,
    }));
  return [...late, ...unserved, ...(await runWarnings(services))];
}
