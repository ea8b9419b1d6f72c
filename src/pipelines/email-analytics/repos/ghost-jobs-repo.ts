import type { Kysely, Transaction } from "kysely";
import type { EmailAnalyticsTables, GhostJobRow } from "../tables.ts";
import { objectId } from "./sql-batch.ts";

/** The `jobs` rows of the fetch phases, with Ghost's names. */
export const JOB_ROWS = {
  opened: "email-analytics-latest-opened",
  others: "email-analytics-latest-others",
  missing: "email-analytics-missing",
  scheduled: "email-analytics-scheduled",
} as const;

/** One of the four row names. */
export type JobRowName = (typeof JOB_ROWS)[keyof typeof JOB_ROWS];

type Db = Kysely<EmailAnalyticsTables> | Transaction<EmailAnalyticsTables>;

/** Ghost's `jobs.status` values. */
export type JobStatus = "started" | "finished" | "failed" | "queued";

/** The row of `name`, if it exists. */
export async function getJobRow(db: Db, name: JobRowName): Promise<GhostJobRow | undefined> {
  return db.selectFrom("jobs").selectAll().where("name", "=", name).executeTakeFirst();
}

/** All four rows (absent ones left out). */
export async function getJobRows(db: Db): Promise<GhostJobRow[]> {
  return db
    .selectFrom("jobs")
    .selectAll()
    .where("name", "in", Object.values(JOB_ROWS))
    .orderBy("name")
    .execute();
}

/** Ghost's getLastJobRunTimestamp: `finished_at || started_at` of the row. */
export async function lastJobRunTimestamp(db: Db, name: JobRowName): Promise<Date | undefined> {
  const row = await getJobRow(db, name);
  const at = row?.finished_at ?? row?.started_at;
  return at ? new Date(at) : undefined;
}

/** Updates the row, inserting it first when it does not exist yet. */
export async function upsertJobRow(
  tx: Transaction<EmailAnalyticsTables>,
  name: JobRowName,
  fields: Partial<Pick<GhostJobRow, "status" | "started_at" | "finished_at" | "metadata">>,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const result = await tx
    .updateTable("jobs")
    .set({ ...fields, updated_at: at })
    .where("name", "=", name)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return;
  await tx
    .insertInto("jobs")
    .values({
      id: objectId(now.getTime()),
      name,
      status: fields.status ?? "queued",
      started_at: fields.started_at ?? null,
      finished_at: fields.finished_at ?? null,
      created_at: at,
      updated_at: at,
      metadata: fields.metadata ?? null,
      queue_entry: null,
    })
    .execute();
}

/** Ghost's setJobTimestamp(name, 'started' | 'finished', date): the column and the status. */
export async function setJobTimestamp(
  tx: Transaction<EmailAnalyticsTables>,
  name: JobRowName,
  field: "started" | "finished",
  date: Date,
  now: Date,
): Promise<void> {
  const column = field === "started" ? "started_at" : "finished_at";
  await upsertJobRow(tx, name, { [column]: date.toISOString(), status: field }, now);
}

/**
 * Moves the row's `finished_at` (its watermark) to `date`, never backwards: a later stored value
 * is kept. `fields` (e.g. the status) are written either way.
 */
export async function advanceFinishedAt(
  tx: Transaction<EmailAnalyticsTables>,
  name: JobRowName,
  date: Date,
  now: Date,
  fields: Partial<Pick<GhostJobRow, "status">> = {},
): Promise<void> {
  const stored = (await getJobRow(tx, name))?.finished_at;
  const later = !stored || new Date(stored).getTime() < date.getTime();
  await upsertJobRow(
    tx,
    name,
    later ? { ...fields, finished_at: date.toISOString() } : fields,
    now,
  );
}

/** A scheduled backfill range, kept in the `email-analytics-scheduled` row's metadata. */
export interface ScheduledRange {
  begin: string;
  end: string;
}

/** What Tidemark keeps in a row's `metadata` (JSON): the backfill range, the last fetch's figures. */
export interface JobRowMetadata {
  schedule?: ScheduledRange;
  last_fetch?: Record<string, unknown>;
}

/** The row's metadata, parsed ({} when empty or not ours). */
export function parseMetadata(row: Pick<GhostJobRow, "metadata"> | undefined): JobRowMetadata {
  if (!row?.metadata) return {};
  try {
    const parsed = JSON.parse(row.metadata) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as JobRowMetadata) : {};
  } catch {
    return {};
  }
}

/** The pending backfill range, if one is scheduled. */
export function scheduledRange(row: GhostJobRow | undefined): ScheduledRange | undefined {
  const { schedule } = parseMetadata(row);
  return schedule?.begin && schedule.end ? schedule : undefined;
}

/** True while `range` is still the scheduled backfill (not cancelled, nor scheduled anew). */
export async function isScheduled(db: Db, range: ScheduledRange): Promise<boolean> {
  const now = scheduledRange(await getJobRow(db, JOB_ROWS.scheduled));
  return now?.begin === range.begin && now.end === range.end;
}

/** Records a fetch's figures in the row's metadata, keeping the rest of it. */
export async function recordLastFetch(
  tx: Transaction<EmailAnalyticsTables>,
  name: JobRowName,
  lastFetch: Record<string, unknown>,
  fields: Partial<Pick<GhostJobRow, "status" | "finished_at">>,
  now: Date,
): Promise<void> {
  const metadata = { ...parseMetadata(await getJobRow(tx, name)), last_fetch: lastFetch };
  await upsertJobRow(tx, name, { ...fields, metadata: JSON.stringify(metadata) }, now);
}

/** Clears the backfill range (done or cancelled); the row is marked finished. */
export async function clearSchedule(
  tx: Transaction<EmailAnalyticsTables>,
  now: Date,
): Promise<void> {
  const { schedule: _done, ...rest } = parseMetadata(await getJobRow(tx, JOB_ROWS.scheduled));
  const metadata = Object.keys(rest).length > 0 ? JSON.stringify(rest) : null;
  await upsertJobRow(tx, JOB_ROWS.scheduled, { status: "finished", metadata }, now);
}

/**
 * Schedules a backfill of [begin, end): the range goes into the row's metadata, the row is
 * `queued` and its timestamps are cleared, so the fetch starts at `begin`.
 */
export async function setSchedule(
  tx: Transaction<EmailAnalyticsTables>,
  range: ScheduledRange,
  now: Date,
): Promise<void> {
  const current = parseMetadata(await getJobRow(tx, JOB_ROWS.scheduled));
  await upsertJobRow(
    tx,
    JOB_ROWS.scheduled,
    {
      status: "queued",
      started_at: null,
      finished_at: null,
      metadata: JSON.stringify({ ...current, schedule: range }),
    },
    now,
  );
}

/** Stores a backfill range in its own transaction (see setSchedule). */
export async function storeSchedule(
  db: Kysely<EmailAnalyticsTables>,
  range: ScheduledRange,
  now: Date,
): Promise<void> {
  await db.transaction().execute((tx) => setSchedule(tx, range, now));
}

/** Clears the backfill range in its own transaction (see clearSchedule). */
export async function cancelSchedule(db: Kysely<EmailAnalyticsTables>, now: Date): Promise<void> {
  await db.transaction().execute((tx) => clearSchedule(tx, now));
}
