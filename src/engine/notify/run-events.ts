import type { Logger } from "../../infra/logging/logger.ts";
import type { RunStatus } from "../engine-tables.ts";
import type { HttpRequestEvent } from "../http/http-client-types.ts";

/** A run that reached a final status: finished by its runner, or marked abandoned. */
export interface RunEndedEvent {
  runId: string;
  jobName: string;
  jobType: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string;
  error: string | null;
  dryRun: boolean;
}

/** Something that wants to hear about ended runs (metrics, the failure webhook). */
export type RunEndedListener = (event: RunEndedEvent) => void | Promise<void>;

/**
 * The runtime's run observer: the runner and `RunRepo.markAbandoned` report every ended run
 * here, so metrics and notifications hook in without the runner knowing about them.
 * Listener failures are logged and never reach the run.
 */
export class RunEvents {
  readonly #listeners = new Set<RunEndedListener>();
  readonly #requests = new Set<(event: HttpRequestEvent) => void>();

  constructor(private readonly logger: Logger) {}

  /** Adds a listener; returns the function that removes it. */
  onRunEnded(listener: RunEndedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener; never throws and never waits for async listeners. */
  emitRunEnded(event: RunEndedEvent): void {
    for (const listener of this.#listeners) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((err: unknown) => this.#report(err, event));
      } catch (err) {
        this.#report(err, event);
      }
    }
  }

  /**
   * Adds a listener of the outside requests the process's pipelines make (each attempt, as
   * their HttpClient reports it through `PipelineServices.reportHttpRequest`): the serve and
   * worker processes' metrics. Returns the function that removes it.
   */
  onHttpRequest(listener: (event: HttpRequestEvent) => void): () => void {
    this.#requests.add(listener);
    return () => this.#requests.delete(listener);
  }

  /** Tells every request listener; never throws (metrics must not break a fetch). */
  emitHttpRequest(event: HttpRequestEvent): void {
    for (const listener of this.#requests) {
      try {
        listener(event);
      } catch (err) {
        this.logger.warn({ err, host: event.host }, "http request listener failed");
      }
    }
  }

  #report(err: unknown, event: RunEndedEvent): void {
    this.logger.warn({ err, run_id: event.runId }, "run-ended listener failed");
  }
}
