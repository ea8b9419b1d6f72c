// One lease per entity: two item jobs of any names, or an item job and `rakuten reapply item`,
// never apply the same items at once; other entities run beside them.
import { expect, it } from "vitest";
import { AlreadyRunningError } from "../../src/engine/errors.ts";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";
import { gateRequests } from "./support/request-gate.ts";

describeEachDialect("rakuten entity leases", (h) => {
  it("a second job of the entity waits its turn (already running); another entity does not", async () => {
    const t = await openRakutenHarness(h);
    const codes = t.catalogue.itemCodes(2);
    const { reached, release } = gateRequests(t);
    const running = t.run("rakuten.item", { item_codes: codes });
    await reached;
    t.hooks.beforeRequest = async () => {};

    const other = (jobName: string, jobType: string, params: object) =>
      executeRun(t.rt, { jobName, jobType, params }).catch((e: unknown) => e);
    const second = await other("gift-items", "rakuten.item", { item_codes: codes });
    expect(second).toBeInstanceOf(AlreadyRunningError);
    expect((second as Error).message).toMatch(/already running.*rakuten-item_/);
    expect(await other("reapply", "rakuten.reapply", { entity: "item" })).toBeInstanceOf(
      AlreadyRunningError,
    );
    const ranking = await other("ranks", "rakuten.ranking", { genre_ids: [0] });
    expect(ranking).toMatchObject({ status: "succeeded" });

    release();
    expect((await running).status).toBe("succeeded");
  });
});
