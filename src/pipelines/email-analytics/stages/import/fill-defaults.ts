import { randomUUID } from "node:crypto";
import type { MemberInfo } from "./check-references.ts";
import type { Cell, CheckedRow } from "./coerce.ts";
import { IMPORT_COLUMNS, type ImportTable } from "./columns.ts";
import type { ByTable, Entry } from "./import-records.ts";

/** The columns Ghost fills itself, for rows that leave them out. */
export function fillDefaults(
  byTable: ByTable,
  fresh: (table: ImportTable) => Entry[],
  members: Map<string, MemberInfo>,
  now: Date,
): Record<ImportTable, Record<string, Cell>[]> {
  const at = now.toISOString();
  const recipientsPerEmail = new Map<string, number>();
  for (const { row } of byTable.email_recipients.values()) {
    const id = row.email_id as string;
    recipientsPerEmail.set(id, (recipientsPerEmail.get(id) ?? 0) + 1);
  }
  for (const { row } of byTable.members.values()) {
    if (row.uuid === undefined) {
      row.uuid = randomUUID();
      const m = members.get(row.id as string);
      if (m) m.uuid = row.uuid;
    }
  }
  const withDefaults = (table: ImportTable, defaults: (row: CheckedRow) => CheckedRow) =>
    fresh(table).map(({ row }) => {
      const full: Record<string, Cell> = { ...defaults(row), ...row };
      for (const c of IMPORT_COLUMNS[table]) if (full[c.name] === undefined) full[c.name] = null;
      return full;
    });
  return {
    members: withDefaults("members", () => ({
      status: "free",
      email_count: 0,
      email_opened_count: 0,
      email_disabled: 0,
      created_at: at,
    })),
    members_newsletters: withDefaults("members_newsletters", () => ({})),
    emails: withDefaults("emails", (row) => ({
      uuid: randomUUID(),
      status: "submitted",
      email_count: recipientsPerEmail.get(row.id as string) ?? 0,
      delivered_count: 0,
      opened_count: 0,
      failed_count: 0,
      track_opens: 0,
      track_clicks: 0,
      submitted_at: (row.created_at as string | undefined) ?? at,
      created_at: at,
    })),
    email_batches: withDefaults("email_batches", (row) => ({
      status: "submitted",
      created_at: at,
      updated_at: (row.created_at as string | undefined) ?? at,
    })),
    email_recipients: withDefaults("email_recipients", (row) => {
      const m = members.get(row.member_id as string);
      const copied: CheckedRow = m
        ? { member_uuid: m.uuid, member_email: m.email, member_name: m.name }
        : {};
      return copied;
    }),
  };
}
