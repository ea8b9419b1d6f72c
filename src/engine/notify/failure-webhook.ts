import type { Config } from "../../infra/config/load-config.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { RunEvents } from "./run-events.ts";
import type { WebhookNotifier } from "./webhook-notifier.ts";

/** How long closing a runtime waits for failure notifications still being delivered. */
export const NOTIFY_DRAIN_MS = 10_000;

/**
 * Starts the failure webhook when `notify.webhook_url` is configured (every process that runs
 * jobs reports its failures: serve, worker, `run`, `run-due`); undefined otherwise. The notifier
 * and its HTTP client (Node's http, https and zlib: ~8 ms to load) are loaded only then: every
 * command that opens the database comes through here.
 */
export async function startFailureWebhook(
  config: Config,
  events: RunEvents,
  logger: Logger,
): Promise<WebhookNotifier | undefined> {
  const notify = config.notify;
  if (!notify.webhookUrl) return undefined;
  const { WebhookNotifier: Notifier } = await import("./webhook-notifier.ts");
  const notifier = new Notifier({
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
