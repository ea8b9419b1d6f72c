import {
  DEFAULT_SCHEDULER_SETTINGS,
  type SchedulerSettings,
} from "../../infra/config/load-config.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import { describeError } from "../errors.ts";
import { type JobRecord, JobRepo } from "../jobs/job-repo.ts";
import { DEFAULT_STOP_GRACE_MS } from "../queue/queue-options.ts";
import { RunRepo } from "../runs/run-repo.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { occurrenceAfter } from "./cron-math.ts";
import type { Fire, FireDispatcher, FireOutcome } from "./fire.ts";
import { FireClaims } from "./fire-claims.ts";
import { JitterTable } from "./jitter.ts";
import { decide, type JobTiming, nextPending } from "./plan.ts";
import type { Scheduler, SchedulerOptions } from "./scheduler.ts";

/** Construction options of EmbeddedScheduler. */
export type EmbeddedSchedulerOptions = SchedulerOptions;

interface Entry {
  job: JobRecord;
  /** Changes when anything that affects timing changes. */
  version: string;
  timing: JobTiming;
  /** Next occurrence not yet handled; undefined when the schedule never fires again. */
  pending: Date | undefined;
}

const MIN_SLEEP_MS = 5;

function later(...dates: Array<Date | string | undefined>): Date {
  let max = 0;
  for (const d of dates) if (d !== undefined) max = Math.max(max, new Date(d).getTime());
  return new Date(max);
}

/**
 * The cron scheduler of `tidemark serve` (embedded mode): fires every enabled scheduled job
 * at its occurrences (croner, in the job's time zone) plus its per-process jitter. Jobs are
 * re-read every `reload` period, so added, changed and removed jobs are picked up. A job
 * never overlaps itself: a fire while this process still handles the previous one is
 * skipped, each occurrence is claimed in `tm_schedule_fires` so several schedulers fire it
 * once, and the dispatcher skips jobs whose lease is held. Tests drive it with an injected
 * clock through reload() and tick(); start() runs the timer loop.
 */
export class EmbeddedScheduler implements Scheduler {
  readonly engine = "embedded";
  readonly #runtime: Runtime;
  readonly #dispatch: FireDispatcher;
  readonly #settings: SchedulerSettings;
  readonly #jitter: JitterTable;
  readonly #claims: FireClaims;
  readonly #logger: Logger;
  readonly #onOutcome: EmbeddedSchedulerOptions["onOutcome"];
  readonly #entries = new Map<string, Entry>();
  /** Fires being dispatched, by job. */
  readonly #running = new Map<string, Promise<void>>();
  readonly #stopLoop = new AbortController();
  /** Aborted when stop()'s grace period runs out: inline runs stop. */
  readonly #abortRuns = new AbortController();
  #lastReloadMs = Number.NEGATIVE_INFINITY;
  #started: Promise<void> | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;

  constructor(options: EmbeddedSchedulerOptions) {
    this.#runtime = options.runtime;
    this.#dispatch = options.dispatch;
    this.#settings = options.settings ?? DEFAULT_SCHEDULER_SETTINGS;
    this.#jitter = new JitterTable(options.random);
    this.#claims = new FireClaims(options.runtime.db);
    this.#logger = options.runtime.logger.child({ component: "scheduler" });
    this.#onOutcome = options.onOutcome;
  }

  /** Re-reads the jobs: schedules new and changed ones, forgets removed and disabled ones. */
  async reload(): Promise<void> {
    this.#lastReloadMs = this.#runtime.clock.now().getTime();
    const jobs = await new JobRepo(this.#runtime.db).list();
    const seen = new Set<string>();
    for (const job of jobs) {
      if (!job.enabled || job.schedule === null) continue;
      seen.add(job.name);
      const jitter = job.jitter ?? 0;
      const version = [job.updatedAt, job.schedule, job.timezone, jitter].join("|");
      const existing = this.#entries.get(job.name);
      if (existing?.version === version) {
        existing.job = job;
        continue;
      }
      const timing = {
        schedule: job.schedule,
        timezone: job.timezone,
        offsetMs: this.#jitter.offsetMs(job.name, jitter),
      };
      // Occurrences after the last thing that happened to the job are still owed to it.
      const since = later(
        job.updatedAt,
        await new RunRepo(this.#runtime.db).lastStartedAt(job.name),
        await this.#claims.last(job.name),
      );
      const pending = occurrenceAfter(timing.schedule, timing.timezone, since);
      this.#entries.set(job.name, { job, version, timing, pending });
      this.#logger.info(
        {
          job: job.name,
          schedule: job.schedule,
          timezone: job.timezone,
          jitter_ms: timing.offsetMs,
          first_fire: pending && new Date(pending.getTime() + timing.offsetMs).toISOString(),
        },
        existing ? "job schedule changed" : "job scheduled",
      );
    }
    for (const name of [...this.#entries.keys()]) {
      if (seen.has(name)) continue;
      this.#entries.delete(name);
      this.#logger.info({ job: name }, "job unscheduled (removed, disabled or unscheduled)");
    }
  }

  /** Fires every job whose time has come (dispatches run in the background); none once stopped. */
  async tick(): Promise<void> {
    if (this.#stopped) return;
    const now = this.#runtime.clock.now();
    const policy = { misfire: this.#settings.misfire, graceMs: this.#settings.misfireGraceMs };
    for (const entry of this.#entries.values()) {
      if (!entry.pending) continue;
      const decision = decide(entry.timing, entry.pending, now, policy);
      if (decision.action === "wait") continue;
      entry.pending = nextPending(entry.timing, now);
      const fire: Fire = {
        job: entry.job,
        occurrence: decision.occurrence,
        fireAt: new Date(decision.occurrence.getTime() + entry.timing.offsetMs),
        kind: decision.action === "fire" ? decision.kind : "misfire",
      };
      if (decision.action === "skip-misfire") {
        this.#logger.warn(
          {
            job: entry.job.name,
            occurrence: fire.occurrence.toISOString(),
            late_ms: decision.lateMs,
          },
          "missed occurrence skipped (misfire policy: skip)",
        );
        this.#onOutcome?.(fire, "skipped-misfire");
        continue;
      }
      this.#start(fire, now);
    }
  }

  /** The next fire time of every scheduled job (for logs and tests). */
  nextFires(): Array<{ job: string; fireAt: string }> {
    return [...this.#entries.values()]
      .filter((e) => e.pending !== undefined)
      .map((e) => ({
        job: e.job.name,
        fireAt: new Date((e.pending as Date).getTime() + e.timing.offsetMs).toISOString(),
      }));
  }

  /** Waits until every fire dispatched so far is done. */
  async settle(): Promise<void> {
    await Promise.all([...this.#running.values()]);
  }

  /** Reads the jobs, then starts the timer loop (reload every period, sleep until the next fire). */
  start(): Promise<void> {
    this.#started ??= this.#reloadLogged().then(() => {
      if (!this.#stopped) this.#loop = this.#run();
    });
    return this.#started;
  }

  /**
   * Stops firing, then waits up to graceMs for fires still being dispatched (inline runs);
   * after that their signal aborts them (they record themselves as failed).
   */
  async stop(graceMs = DEFAULT_STOP_GRACE_MS): Promise<void> {
    this.#stopped = true;
    this.#stopLoop.abort();
    await this.#started;
    await this.#loop;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), graceMs);
    });
    const result = await Promise.race([this.settle(), expired]);
    clearTimeout(timer);
    if (result === "expired") {
      this.#abortRuns.abort(new Error("scheduler stopping: grace period over"));
      await this.settle();
    }
  }

  #start(fire: Fire, now: Date): void {
    const name = fire.job.name;
    const log = { job: name, occurrence: fire.occurrence.toISOString(), kind: fire.kind };
    if (this.#running.has(name)) {
      this.#logger.warn(log, "fire skipped: the previous fire of this job is still running");
      this.#onOutcome?.(fire, "skipped-running");
      return;
    }
    const work = (async () => {
      let outcome: FireOutcome;
      try {
        outcome = (await this.#claims.claim(name, fire.occurrence, now))
          ? await this.#dispatch(fire, this.#abortRuns.signal)
          : "skipped-claimed";
      } catch (err) {
        outcome = "error";
        this.#logger.error({ ...log, error: describeError(err) }, "fire failed");
      }
      const level = outcome === "skipped-running" || outcome === "skipped-queued" ? "warn" : "info";
      this.#logger[level]({ ...log, outcome }, `fire ${outcome}`);
      this.#onOutcome?.(fire, outcome);
    })().finally(() => this.#running.delete(name));
    this.#running.set(name, work);
  }

  async #reloadLogged(): Promise<void> {
    try {
      await this.reload();
    } catch (err) {
      this.#logger.error({ error: describeError(err) }, "scheduler reload failed; retrying");
    }
  }

  async #run(): Promise<void> {
    const { clock } = this.#runtime;
    const stop = this.#stopLoop.signal;
    while (!stop.aborted) {
      try {
        if (clock.now().getTime() - this.#lastReloadMs >= this.#settings.reloadMs)
          await this.reload();
        await this.tick();
      } catch (err) {
        this.#logger.error({ error: describeError(err) }, "scheduler pass failed; retrying");
      }
      const now = clock.now().getTime();
      let wait = this.#lastReloadMs + this.#settings.reloadMs - now;
      for (const e of this.#entries.values()) {
        if (e.pending) wait = Math.min(wait, e.pending.getTime() + e.timing.offsetMs - now);
      }
      await sleep(Math.max(MIN_SLEEP_MS, wait), stop);
    }
  }
}

/** Resolves after ms, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
