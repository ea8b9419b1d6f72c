import type { RunEndedEvent } from "./run-events.ts";

/** The JSON body POSTed to the failure webhook. */
export interface FailurePayload {
  event: "run.failed" | "run.abandoned";
  /** One line for chat webhooks (Slack, Mattermost) that display `text`. */
  text: string;
  env: string;
  job: string;
  job_type: string;
  run_id: string;
  status: string;
  error: string | null;
  started_at: string;
  finished_at: string;
  dry_run: boolean;
  /** `<public_url>/api/runs/<run_id>`, null when no public URL is configured. */
  link: string | null;
}

/** True for the statuses the webhook reports. */
export function isFailure(event: RunEndedEvent): boolean {
  return event.status === "failed" || event.status === "abandoned";
}

/** Builds the webhook body for a failed or abandoned run. */
export function failurePayload(
  event: RunEndedEvent,
  options: { env: string; publicUrl?: string },
): FailurePayload {
  const link = options.publicUrl
    ? `${options.publicUrl.replace(/\/+$/, "")}/api/runs/${encodeURIComponent(event.runId)}`
    : null;
  const what = event.status === "abandoned" ? "was abandoned" : "failed";
  return {
    event: event.status === "abandoned" ? "run.abandoned" : "run.failed",
    text: `tidemark (${options.env}): job ${event.jobName} ${what} (run ${event.runId})${event.error ? `: ${event.error}` : ""}`,
    env: options.env,
    job: event.jobName,
    job_type: event.jobType,
    run_id: event.runId,
    status: event.status,
    error: event.error,
    started_at: event.startedAt,
    finished_at: event.finishedAt,
    dry_run: event.dryRun,
    link,
  };
}
