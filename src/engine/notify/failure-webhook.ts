import type { Config } from "../../infra/config/load-config.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { RunEvents } from "./run-events.ts";
import { WebhookNotifier } from "./webhook-notifier.ts";

/** How long closing a runtime waits for failure notifications still being delivered. */
export const NOTIFY_DRAIN_MS = 10_000;

/**
 * Starts the failure webhook when `notify.webhook_url` is configured (every process that runs
 * jobs reports its failures: serve, worker, `run`, `run-due`); undefined otherwise.
 */
export function startFailureWebhook(
  config: Config,
  events: RunEvents,
  logger: Logger,
): WebhookNotifier | undefined {
  const notify = config.notify;
  if (!notify.webhookUrl) return undefined;
  const notifier = new WebhookNotifier({
    url: notify.webhookUrl,
    secret: notify.webhookSecret,
    retries: notify.retries,
    timeoutMs: notify.timeoutMs,
    env: config.env,
    publicUrl: config.server.publicUrl,
    logger: logger.child({ component: "notify" }),
    onRequest: (event) => events.emitHttpRequest(event),
  });
  notifier.attach(events);
  return notifier;
}
