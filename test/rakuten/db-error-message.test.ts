import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";
import { refuseWrites } from "./support/refuse-writes.ts";

describeEachDialect("rakuten: a database error's message", (h) => {
  it("names the entity, the batch's targets, that none of them but earlier batches were committed, then the cause", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(4).sort();
    // A trigger refusing the second batch's staging writes stands in for a database failing mid-run.
    await refuseWrites(t.db, h.dialect, {
      name: "refuse2",
      table: "staging",
      op: "insert",
      message: "disk on fire",
      only: { column: "source_id", value: codes[2]! },
    });
    const r = await t.run("rakuten.item", { item_codes: codes, batch_size: 2 });
    expect(r.status).toBe("failed");
    expect(r.error).toBe(
      `rakuten item: database error at targets ${codes[2]} … ${codes[3]} (2 in the batch, none of them committed; earlier batches were): disk on fire`,
    );
  });

  it("in a re-apply too: the commit's batch is named", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(3).sort();
    expect((await t.run("rakuten.item", { item_codes: codes })).status).toBe("succeeded");
    await t.db
      .updateTable("apl.staging")
      .set({ applied_version: 0 })
      .where("entity", "=", "item")
      .execute();
    await refuseWrites(t.db, h.dialect, {
      name: "refuse3",
      table: "staging",
      op: "update",
      message: "disk on fire",
    });
    const r = await t.run("rakuten.reapply", { entity: "item" });
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(
      /^rakuten item reapply: database error at targets \S+ … \S+ \(3 in the batch, none of them committed\): disk on fire$/,
    );
  });
});
