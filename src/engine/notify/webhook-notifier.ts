import { createHmac } from "node:crypto";
import type { Logger } from "../../infra/logging/logger.ts";
import { silentLogger } from "../../infra/logging/logger.ts";
import { describeError } from "../errors.ts";
import { HttpClient } from "../http/http-client.ts";
import type { HttpRequestEvent } from "../http/http-client-types.ts";
import { HttpError } from "../http/http-errors.ts";
import type { RetryPolicyOptions } from "../http/retry-policy.ts";
import type { RunEndedEvent, RunEvents } from "./run-events.ts";
import { failurePayload, isFailure } from "./webhook-payload.ts";

/** Construction options of WebhookNotifier. */
export interface WebhookNotifierOptions {
  /** The receiver; may hold a secret (chat webhooks do), so it is never logged whole. */
  url: string;
  /** HMAC-SHA256 key for `X-Tidemark-Signature`. */
  secret?: string;
  /** Retries after the first failed attempt (exponential backoff with jitter). */
  retries: number;
  timeoutMs: number;
  /** Deployment environment named in the payload. */
  env: string;
  /** Base of the `link` field; no link without it. */
  publicUrl?: string;
  logger: Logger;
  /** Backoff tuning (tests shorten it). */
  retry?: Omit<RetryPolicyOptions, "maxAttempts">;
  fetch?: typeof fetch;
  /** Told of each delivery attempt (the process's HTTP metrics). */
  onRequest?: (event: HttpRequestEvent) => void;
}

/** What one delivery came to. */
export interface DeliveryOutcome {
  runId: string;
  delivered: boolean;
  attempts: number;
  error?: string;
}

/**
 * POSTs a JSON body to a webhook for every failed or abandoned run, retrying with backoff
 * (the engine's HttpClient). Deliveries run in the background; `drain` waits for them.
 */
export class WebhookNotifier {
  readonly #client: HttpClient;
  readonly #options: WebhookNotifierOptions;
  readonly #host: string;
  readonly #pending = new Set<Promise<DeliveryOutcome>>();
  readonly #abort = new AbortController();

  constructor(options: WebhookNotifierOptions) {
    this.#options = options;
    this.#host = new URL(options.url).host;
    this.#client = new HttpClient({
      timeoutMs: options.timeoutMs,
      retry: {
        baseDelayMs: 1000,
        maxDelayMs: 60_000,
        ...options.retry,
        maxAttempts: options.retries + 1,
      },
      // The client logs URLs; a webhook URL is a credential, so it logs nothing and the
      // notifier logs the host only.
      logger: silentLogger(),
      userAgent: "tidemark-notify/0.1",
      fetch: options.fetch,
      onRequest: options.onRequest,
    });
  }

  /** Subscribes to ended runs; returns the unsubscribe function. */
  attach(events: RunEvents): () => void {
    return events.onRunEnded((event) => {
      if (isFailure(event)) this.notify(event);
    });
  }

  /** Starts delivering one event in the background; the promise never rejects. */
  notify(event: RunEndedEvent): Promise<DeliveryOutcome> {
    const delivery = this.#deliver(event).finally(() => this.#pending.delete(delivery));
    this.#pending.add(delivery);
    return delivery;
  }

  /** Deliveries still in progress. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Waits up to timeoutMs for pending deliveries, then gives the rest up (logged). */
  async drain(timeoutMs: number): Promise<void> {
    if (this.#pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const result = await Promise.race([Promise.all([...this.#pending]), timeout]);
    clearTimeout(timer);
    if (result === "timeout") {
      this.#abort.abort(new Error("shutting down"));
      await Promise.all([...this.#pending]);
    }
  }

  async #deliver(event: RunEndedEvent): Promise<DeliveryOutcome> {
    const { env, publicUrl, secret, logger } = this.#options;
    const body = JSON.stringify(failurePayload(event, { env, publicUrl }));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      // Lets the receiver drop the duplicates a retry after a lost answer can cause.
      "x-tidemark-delivery": event.runId,
    };
    if (secret) {
      headers["x-tidemark-signature"] =
        `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    }
    const log = { run_id: event.runId, job: event.jobName, status: event.status, host: this.#host };
    try {
      const res = await this.#client.request(this.#options.url, {
        method: "POST",
        body,
        headers,
        retryUnsafe: true,
        signal: this.#abort.signal,
      });
      logger.info({ ...log, attempts: res.attempts }, "failure notification delivered");
      return { runId: event.runId, delivered: true, attempts: res.attempts };
    } catch (err) {
      // HttpError messages quote the (redacted) URL; a path may still hold a token.
      const error =
        err instanceof HttpError ? err.message.replace(err.url, this.#host) : describeError(err);
      const attempts = err instanceof HttpError ? err.attempts : 1;
      logger.error({ ...log, attempts, error }, "failure notification not delivered");
      return { runId: event.runId, delivered: false, attempts, error };
    }
  }
}
