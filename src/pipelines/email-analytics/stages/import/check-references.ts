import { rowsWhereIn as lookup } from "../../repos/import-repo.ts";
import type { ImportTable } from "./columns.ts";
import type { ByTable, Db, Entry } from "./import-records.ts";
import { LineError } from "./read-records.ts";

/** A member's fields a recipient copies (member_uuid, member_email, member_name). */
export interface MemberInfo {
  uuid: string;
  email: string;
  name: string | null;
}

/** Members the file's subscriptions and recipients point at: from the file, else the database. */
export async function resolveMembers(
  db: Db,
  byTable: ByTable,
  recipients: Entry[],
  subscriptions: Entry[],
): Promise<Map<string, MemberInfo>> {
  const out = new Map<string, MemberInfo>();
  for (const [id, { row }] of byTable.members) {
    // A missing uuid is filled below; recipients then copy the filled one.
    out.set(id, {
      uuid: (row.uuid as string) ?? "",
      email: row.email as string,
      name: (row.name as string | null) ?? null,
    });
  }
  const wanted = [...recipients, ...subscriptions]
    .map((e) => e.row.member_id as string)
    .filter((id) => !out.has(id));
  for (const m of await lookup<{ id: string } & MemberInfo>(db, "members", "id", wanted, [
    "id",
    "uuid",
    "email",
    "name",
  ])) {
    out.set(m.id, m);
  }
  return out;
}

/** Unique keys of new rows: not twice in the file, not on another id in the database. */
export async function checkUnique(
  db: Db,
  table: ImportTable,
  columns: string[],
  entries: Entry[],
  problems: LineError[],
): Promise<void> {
  const label = table === "members" ? "member" : "email";
  for (const column of columns) {
    const seen = new Map<string, Entry>();
    for (const e of entries) {
      const value = e.row[column];
      if (typeof value !== "string") continue;
      const other = seen.get(value);
      if (other) {
        problems.push(
          new LineError(e.line, `${label}.${column}: ${value} is also given on line ${other.line}`),
        );
      } else {
        seen.set(value, e);
      }
    }
    for (const r of await lookup<Record<string, string>>(db, table, column, seen.keys(), [
      "id",
      column,
    ])) {
      const e = seen.get(r[column] as string);
      if (e && e.row.id !== r.id) {
        problems.push(
          new LineError(
            e.line,
            `${label}.${column}: ${r[column]} already belongs to ${label} ${r.id} in the database`,
          ),
        );
      }
    }
  }
}

/**
 * References of new rows: subscriptions to known members, batches to known emails, recipients
 * to a known email, a batch of that same email and a known member (or its uuid and address).
 */
export async function checkReferences(
  db: Db,
  byTable: ByTable,
  fresh: (table: ImportTable) => Entry[],
  problems: LineError[],
): Promise<Map<string, MemberInfo>> {
  const members = await resolveMembers(
    db,
    byTable,
    fresh("email_recipients"),
    fresh("members_newsletters"),
  );
  const emails = new Set(byTable.emails.keys());
  const batches = new Map(
    [...byTable.email_batches].map(([id, e]) => [id, e.row.email_id as string]),
  );
  const refEmails = [...fresh("email_batches"), ...fresh("email_recipients")].map(
    (e) => e.row.email_id as string,
  );
  for (const r of await lookup<{ id: string }>(
    db,
    "emails",
    "id",
    refEmails.filter((id) => !emails.has(id)),
    ["id"],
  )) {
    emails.add(r.id);
  }
  const refBatches = fresh("email_recipients").map((e) => e.row.batch_id as string);
  for (const r of await lookup<{ id: string; email_id: string }>(
    db,
    "email_batches",
    "id",
    refBatches.filter((id) => !batches.has(id)),
    ["id", "email_id"],
  )) {
    batches.set(r.id, r.email_id);
  }
  for (const { line, row } of fresh("members_newsletters")) {
    if (!members.has(row.member_id as string)) {
      problems.push(
        new LineError(
          line,
          `newsletter_subscription.member_id: member ${row.member_id} is neither in the file nor in the database`,
        ),
      );
    }
  }
  for (const { line, row } of fresh("email_batches")) {
    if (!emails.has(row.email_id as string)) {
      problems.push(
        new LineError(
          line,
          `email_batch.email_id: email ${row.email_id} is neither in the file nor in the database`,
        ),
      );
    }
  }
  for (const { line, row } of fresh("email_recipients")) {
    const where = "email_recipient";
    if (!emails.has(row.email_id as string)) {
      problems.push(
        new LineError(
          line,
          `${where}.email_id: email ${row.email_id} is neither in the file nor in the database`,
        ),
      );
    } else if (!batches.has(row.batch_id as string)) {
      problems.push(
        new LineError(
          line,
          `${where}.batch_id: email_batch ${row.batch_id} is neither in the file nor in the database`,
        ),
      );
    } else if (batches.get(row.batch_id as string) !== row.email_id) {
      problems.push(
        new LineError(
          line,
          `${where}.batch_id: email_batch ${row.batch_id} belongs to email ${batches.get(row.batch_id as string)}, not ${row.email_id}`,
        ),
      );
    }
    const m = members.get(row.member_id as string);
    if (!m && (row.member_uuid === undefined || row.member_email === undefined)) {
      problems.push(
        new LineError(
          line,
          `${where}.member_id: member ${row.member_id} is neither in the file nor in the database (or give member_uuid and member_email)`,
        ),
      );
    }
  }
  return members;
}
