import type { RunEndedEvent } from "../notify/run-events.ts";

/** A job stored in `tm_jobs` (what `tidemark job ls` lists). */
export interface StoredJob {
  name: string;
  type: string;
  params: unknown;
  schedule: string | null;
  timezone: string;
  enabled: boolean;
  /** Seconds of random offset (drawn once per process) added to each occurrence; absent = 0. */
  jitter?: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * A job to store: name and type; params (default `{}`), schedule (default none), time zone
 * (default UTC), enabled (default true), jitter (default 0) as in a jobs file.
 */
export interface StoredJobSpec {
  name: string;
  type: string;
  params?: unknown;
  schedule?: string | null;
  timezone?: string;
  enabled?: boolean;
  jitter?: number;
}

/** Changes to a stored job; undefined = keep, `schedule: null` removes the schedule. */
export interface StoredJobChanges {
  type?: string;
  params?: unknown;
  schedule?: string | null;
  timezone?: string;
  enabled?: boolean;
  /** Seconds of schedule jitter; 0 removes it. */
  jitter?: number;
}

/**
 * The stored jobs (`tm_jobs`), validated like `tidemark job add`/`update`: a pipeline that
 * creates a job per thing it tracks (a supplier, a demo's schedule) stores it here.
 */
export interface StoredJobs {
  list(): Promise<StoredJob[]>;
  /** The job, or undefined when none has that name. */
  get(name: string): Promise<StoredJob | undefined>;
  /**
   * Checks a spec as `add` would (name, type, params, schedule, time zone) without storing it:
   * UsageError naming the bad field. For a command that writes other things first.
   */
  validate(spec: StoredJobSpec): void;
  /** Stores a new job (UsageError for a bad spec or a name in use). */
  add(spec: StoredJobSpec): Promise<StoredJob>;
  /** Changes a stored job (NotFoundError for an unknown name, UsageError for a bad change). */
  update(name: string, changes: StoredJobChanges): Promise<StoredJob>;
}

/** One run to make now, in this process (`services.runJob`). */
export interface RunJobRequest {
  /** The job's name: its lease, its runs' ids (it need not be stored). */
  readonly job: string;
  /** The job type, e.g. `books.run`. */
  readonly type: string;
  /** Validated with the job type's schema; default `{}`. */
  readonly params?: unknown;
  readonly dryRun?: boolean;
  /** A cap on the number of targets processed. */
  readonly limit?: number;
  /** Aborts the run (e.g. `interruptSignal()` on SIGINT). */
  readonly signal?: AbortSignal;
  /** Draws a progress bar on a terminal (off for `--json`). */
  readonly progress?: boolean;
  /** The caller prints the run's outcome: its failure is then logged at debug only. */
  readonly callerReportsOutcome?: boolean;
  /**
   * This pipeline's `pipelines.<name>` section for this run only (e.g. a fake's URL), validated
   * with its schema like the configured one; default: the configured settings.
   */
  readonly settings?: Record<string, unknown>;
  /**
   * Environment variables for this run only, over the process's (e.g. a fake's credentials for
   * a demo): the run's `ctx.environ` and its settings' environment overrides see them; the
   * process's environment is not changed.
   */
  readonly environ?: Readonly<Record<string, string>>;
}

/** How a run made with `runJob` ended (it is stored like every run: `tidemark runs show`). */
export interface RunJobReport extends RunEndedEvent {
  readonly summary: Record<string, unknown>;
  /** 2 when the run failed on a usage or config error; absent otherwise. */
  readonly exitCode?: 2;
}

/** A run that ended, as the failure webhook and the run metrics hear of it. */
export type EndedRun = RunEndedEvent;
