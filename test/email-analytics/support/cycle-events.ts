// Helpers of the fetch-cycle tests: the summary's phases, and events spread over a window.
import type { FakeEventInput } from "../../../src/pipelines/email-analytics/fake/fake-types.ts";

/** One phase of a fetch cycle as the run summary lists it. */
export interface Phase {
  cycle: number;
  phase: string;
  budget: number;
  events: number;
  skipped?: string;
  begin?: string;
  end?: string;
}

/** The phases of a fetch run's summary. */
export const phasesOf = (summary: Record<string, unknown>) => summary.phases as Phase[];

/** `n` events of `type` for the seeded members, spread evenly between two times. */
export function spread(
  n: number,
  type: string,
  emailId: string,
  members: Array<{ email: string }>,
  from: Date,
  to: Date,
): FakeEventInput[] {
  const step = (to.getTime() - from.getTime()) / n;
  return Array.from({ length: n }, (_, i) => ({
    event: type,
    timestamp: new Date(from.getTime() + i * step),
    recipient: (members[i % members.length] as { email: string }).email,
    emailId,
  }));
}

/** Resolves once the fake has answered `pages` backfill requests (those without an event filter). */
export async function backfillReading(
  fake: { requests: ReadonlyArray<{ query: { event?: unknown } }> },
  pages = 3,
): Promise<void> {
  const until = Date.now() + 30_000;
  while (fake.requests.filter((r) => r.query.event === undefined).length < pages) {
    if (Date.now() > until) throw new Error("the backfill never started");
    await new Promise((r) => setTimeout(r, 20));
  }
}
