// Re-importing ids the database already holds: nothing is overwritten, and the summary says
// when the file has other values for them (so a user does not think an edit was applied).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { migrateToLatest } from "../../src/infra/db/migrator.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import {
  importFile,
  importLines,
} from "../../src/pipelines/email-analytics/stages/import/run-import.ts";
import type { EmailAnalyticsTables } from "../../src/pipelines/email-analytics/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { email, id, member, importScope as scope } from "./support/import-records.ts";

const clock = new ManualClock("2026-01-15T09:30:00.000Z");
const ada = member;
const bob = { type: "member", id: id("b"), email: "bob@example.com", name: "Bob" };

function ndjson(records: unknown[]): string {
  const file = path.join(testTempDir("ea-import-present-"), "members.ndjson");
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return file;
}

describeEachDialect("email-analytics import of ids already present", (h) => {
  it("keeps the stored rows and names the first record whose values differ", async () => {
    const db = await h.freshDatabase();
    await migrateToLatest(db, [scope]);
    await importFile(db, clock, ndjson([ada, bob, email]));

    // Same instant in another offset, same flag: not a difference.
    const same = { ...email, submitted_at: "2026-01-14T07:00:00Z" };
    const edited = ndjson([same, ada, { ...bob, name: "Robert" }]);
    const result = await importFile(db, clock, edited);
    expect(result.present).toMatchObject({ members: 2, emails: 1 });
    expect(result.differing).toMatchObject({ members: 1, emails: 0 });
    expect(result.firstDiffering).toEqual({ members: { line: 3, id: id("b"), column: "name" } });
    expect(importLines(result)).toEqual([
      `imported ${edited}`,
      `  members: 0 imported, 2 already present (kept as stored; 1 with other values in the file, not applied — first: line 3, id ${id("b")}, name)`,
      "  emails: 0 imported, 1 already present (unchanged)",
    ]);
    const names = await typed<EmailAnalyticsTables>(db)
      .selectFrom("members")
      .select("name")
      .orderBy("id")
      .execute();
    expect(names.map((n) => n.name)).toEqual(["Ada", "Bob"]);
  });
});
