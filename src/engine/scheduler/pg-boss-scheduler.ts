import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import {
  DEFAULT_SCHEDULER_SETTINGS,
  type SchedulerSettings,
} from "../../infra/config/load-config.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import { describeError } from "../errors.ts";
import { JobRepo } from "../jobs/job-repo.ts";
import { DEFAULT_STOP_GRACE_MS } from "../queue/queue-options.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { occurrenceAtOrBefore } from "./cron-math.ts";
import type { Fire, FireDispatcher, FireOutcome } from "./fire.ts";
import { JitterTable } from "./jitter.ts";
import type { Scheduler, SchedulerOptions } from "./scheduler.ts";

/** pg-boss queue (and schedule) of a job: `tidemark.schedule.<job>`. */
export const SCHEDULE_QUEUE_PREFIX = "tidemark.schedule.";

/** Construction options of PgBossScheduler. */
export interface PgBossSchedulerOptions extends SchedulerOptions {
  /** A pg-boss instance (`pgBossOf(queue)`) whose timekeeper runs (openQueue(…, { schedule: true })). */
  boss: PgBoss;
  /** Creates a queue serialised across processes (`pgBossQueueCreator(queue)`); default: retries. */
  createQueue?: (name: string) => Promise<void>;
}

/**
 * The scheduler in pg-boss mode: every enabled scheduled job becomes a pg-boss schedule
 * (`boss.schedule`) on its own queue, so pg-boss's timekeeper — which one process at a time
 * runs — fires each occurrence once however many `serve` processes there are. Each process
 * consumes the schedule queues and dispatches the fire after its own jitter offset (as a
 * delayed run request). Jobs are re-synced every reload period. pg-boss fires at most once a
 * minute, up to ~30 s after the occurrence, and skips occurrences missed while no process
 * ran (its misfire policy is always "skip").
 */
export class PgBossScheduler implements Scheduler {
  readonly engine = "pg-boss";
  readonly #runtime: Runtime;
  readonly #boss: PgBoss;
  readonly #createQueue: ((name: string) => Promise<void>) | undefined;
  readonly #dispatch: FireDispatcher;
  readonly #settings: SchedulerSettings;
  readonly #jitter: JitterTable;
  readonly #logger: Logger;
  readonly #onOutcome: PgBossSchedulerOptions["onOutcome"];
  readonly #working = new Set<string>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;
  #started: Promise<void> | undefined;
  #stopped = false;

  constructor(options: PgBossSchedulerOptions) {
    this.#runtime = options.runtime;
    this.#boss = options.boss;
    this.#createQueue = options.createQueue;
    this.#dispatch = options.dispatch;
    this.#settings = options.settings ?? DEFAULT_SCHEDULER_SETTINGS;
    this.#jitter = new JitterTable(options.random);
    this.#logger = options.runtime.logger.child({ component: "scheduler", engine: "pg-boss" });
    this.#onOutcome = options.onOutcome;
  }

  /** Makes pg-boss's schedules match the enabled scheduled jobs and consumes their queues. */
  async reload(): Promise<void> {
    const jobs = (await new JobRepo(this.#runtime.db).list()).filter(
      (j) => j.enabled && j.schedule !== null,
    );
    const wanted = new Map(jobs.map((j) => [`${SCHEDULE_QUEUE_PREFIX}${j.name}`, j]));
    const current = new Map(
      (await this.#boss.getSchedules())
        .filter((s) => s.name.startsWith(SCHEDULE_QUEUE_PREFIX))
        .map((s) => [s.name, s as PgBoss.Schedule & { timezone?: string }]),
    );
    for (const [name, job] of wanted) {
      const have = current.get(name);
      if (!have || have.cron !== job.schedule || have.timezone !== job.timezone) {
        await this.#ensureQueue(name);
        await this.#boss.schedule(
          name,
          job.schedule as string,
          { job: job.name },
          { tz: job.timezone },
        );
        this.#logger.info(
          { job: job.name, schedule: job.schedule, timezone: job.timezone },
          have ? "pg-boss schedule changed" : "pg-boss schedule added",
        );
      }
      if (!this.#working.has(name) && !this.#stopped) {
        this.#working.add(name);
        await this.#boss.work<{ job: string }>(
          name,
          { pollingIntervalSeconds: 2, batchSize: 1 },
          (items) => this.#track(Promise.all(items.map((item) => this.#fire(item.data.job)))),
        );
      }
    }
    for (const name of current.keys()) {
      if (wanted.has(name)) continue;
      await this.#boss.unschedule(name);
      this.#logger.info({ queue: name }, "pg-boss schedule removed");
    }
    for (const name of [...this.#working]) {
      if (wanted.has(name)) continue;
      this.#working.delete(name);
      await this.#boss.offWork(name);
    }
  }

  /** Syncs now and then every reload period. */
  start(): Promise<void> {
    this.#started ??= this.#sync().then(() => {
      if (this.#stopped) return;
      this.#timer = setInterval(() => void this.#sync(), this.#settings.reloadMs);
    });
    return this.#started;
  }

  /** Stops syncing and consuming; waits up to graceMs for fires being dispatched. */
  async stop(graceMs = DEFAULT_STOP_GRACE_MS): Promise<void> {
    this.#stopped = true;
    await this.#started;
    clearInterval(this.#timer);
    await this.#syncing;
    for (const name of this.#working) await this.#boss.offWork(name);
    this.#working.clear();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all([...this.#inFlight]), expired]);
    clearTimeout(timer);
    this.#abort.abort(new Error("scheduler stopping"));
  }

  #sync(): Promise<void> {
    this.#syncing ??= this.reload()
      .catch((err: unknown) =>
        this.#logger.error({ error: describeError(err) }, "pg-boss schedule sync failed; retrying"),
      )
      .finally(() => {
        this.#syncing = undefined;
      });
    return this.#syncing;
  }

  async #ensureQueue(name: string): Promise<void> {
    if (this.#createQueue) return this.#createQueue(name);
    for (let attempt = 1; ; attempt++) {
      if (await this.#boss.getQueue(name)) return;
      try {
        await this.#boss.createQueue(name);
        return;
      } catch (err) {
        // Another process creating it at the same time: pg-boss may report a unique
        // violation or a deadlock (and the winner may not have committed yet). Look again.
        if (attempt === 5) throw err;
        await sleep(50 * attempt + Math.random() * 100);
      }
    }
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    return work.finally(() => this.#inFlight.delete(work));
  }

  async #fire(jobName: string): Promise<void> {
    const job = await new JobRepo(this.#runtime.db).get(jobName);
    // A schedule removed or disabled since the timekeeper fired it.
    if (!job?.enabled || job.schedule === null) return;
    const now = this.#runtime.clock.now();
    const offsetMs = this.#jitter.offsetMs(job.name, job.jitter ?? 0);
    const fire: Fire = {
      job,
      occurrence: occurrenceAtOrBefore(job.schedule, job.timezone, now) ?? now,
      fireAt: new Date(now.getTime() + offsetMs),
      kind: "on-time",
    };
    let outcome: FireOutcome;
    try {
      outcome = await this.#dispatch(fire, this.#abort.signal);
    } catch (err) {
      outcome = "error";
      this.#logger.error({ job: job.name, error: describeError(err) }, "fire failed");
    }
    this.#logger.info(
      { job: job.name, occurrence: fire.occurrence.toISOString(), outcome },
      `fire ${outcome}`,
    );
    this.#onOutcome?.(fire, outcome);
  }
}
