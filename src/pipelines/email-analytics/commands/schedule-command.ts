import { AlreadyRunningError, type CliServices, type PipelineServices, UsageError } from "tidemark";
import { typed } from "tidemark/kit";
import { FETCH_LEASE_KEY } from "../params.ts";
import {
  cancelSchedule,
  getJobRow,
  JOB_ROWS,
  type ScheduledRange,
  scheduledRange,
  storeSchedule,
} from "../repos/ghost-jobs-repo.ts";
import type { EmailAnalyticsTables } from "../tables.ts";

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2})))?$/;

/**
 * True when every field of an INSTANT match is within its calendar range: `new Date()` rolls
 * 2026-02-30 over to March 2 and a 25th hour into the next day instead of refusing them.
 */
function fieldsInRange(m: RegExpExecArray): boolean {
  const n = m.slice(1).map((v) => Number(v ?? 0));
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offH = 0, offM = 0] = n;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offH <= 23 &&
    offM <= 59
  );
}

/** An ISO-8601 date-time with an explicit zone (or a date), parsed; UsageError naming the field. */
export function parseInstant(field: string, value: unknown): Date {
  const text = typeof value === "string" ? value.trim() : "";
  const match = INSTANT.exec(text);
  const date = new Date(text);
  if (!match || !fieldsInRange(match) || Number.isNaN(date.getTime())) {
    throw new UsageError(
      `${field}: expected an ISO-8601 time with a zone such as 2026-01-31T12:00:00Z, got ${JSON.stringify(value ?? "")}`,
    );
  }
  return date;
}

/** How a range's two ends are named in messages: the CLI's flags, or the API's body fields. */
export interface RangeFields {
  begin: string;
  end: string;
}

/** The CLI's flag names (the default). */
export const RANGE_FLAGS: RangeFields = { begin: "--begin", end: "--end" };

/** Checks a backfill range: both ends valid and end after begin; messages name `fields`. */
export function validateRange(
  begin: unknown,
  end: unknown,
  fields: RangeFields = RANGE_FLAGS,
): ScheduledRange {
  const b = parseInstant(fields.begin, begin);
  const e = parseInstant(fields.end, end);
  if (e.getTime() <= b.getTime()) {
    throw new UsageError(
      `${fields.end} (${e.toISOString()}) must be after ${fields.begin} (${b.toISOString()})`,
    );
  }
  return { begin: b.toISOString(), end: e.toISOString() };
}

/**
 * Schedules a backfill (Ghost's `schedule({begin, end})`): refused while a scheduled backfill is
 * being fetched (cancel it first), as Ghost does.
 */
/** What scheduling and cancelling a backfill use. */
export type ScheduleServices = Pick<PipelineServices, "db" | "clock" | "leases">;

export async function scheduleBackfill(
  services: ScheduleServices,
  range: ScheduledRange,
): Promise<void> {
  const db = typed<EmailAnalyticsTables>(services.db);
  const row = await getJobRow(db, JOB_ROWS.scheduled);
  if (
    row?.status === "started" &&
    scheduledRange(row) &&
    (await services.leases.isHeld(FETCH_LEASE_KEY))
  ) {
    throw new AlreadyRunningError("the scheduled backfill", undefined);
  }
  await storeSchedule(db, range, services.clock.now());
}

/** Cancels the backfill; false when none was scheduled. A running fetch stops at its next page. */
export async function cancelBackfill(services: ScheduleServices): Promise<boolean> {
  const db = typed<EmailAnalyticsTables>(services.db);
  if (!scheduledRange(await getJobRow(db, JOB_ROWS.scheduled))) return false;
  await cancelSchedule(db, services.clock.now());
  return true;
}

/** `tidemark email-analytics schedule --begin T --end T` | `--cancel`. */
export async function scheduleCommand(
  options: Readonly<Record<string, unknown>>,
  services: CliServices,
): Promise<void> {
  if (options.cancel) {
    if (options.begin !== undefined || options.end !== undefined) {
      throw new UsageError("--cancel takes no --begin or --end");
    }
    const canceled = await cancelBackfill(await services.services());
    services.print(canceled ? "Scheduled backfill cancelled" : "No backfill was scheduled");
    return;
  }
  if (options.begin === undefined || options.end === undefined) {
    throw new UsageError("schedule needs --begin and --end (or --cancel)");
  }
  const range = validateRange(options.begin, options.end);
  await scheduleBackfill(await services.services(), range);
  services.print(
    `Scheduled backfill from ${range.begin} until ${range.end}: the next fetch cycles read it`,
  );
}
