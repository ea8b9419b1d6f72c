import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { CONFIG, csv, snapshotHarness } from "./support/harness.ts";

/** `good` valid rows and `bad` rows with a non-integer qty. */
function rows(good: number, bad: number, prefix = "S"): string {
  const out: string[] = [];
  for (let i = 0; i < good; i++) out.push(`${prefix}${i},item,${i},1.00`);
  for (let i = 0; i < bad; i++) out.push(`${prefix}B${i},item,many,1.00`);
  return csv(...out);
}

describeEachDialect("snapshots DQ runs", (h) => {
  it("bad_ratio exactly at max_bad_ratio passes; one more bad row fails and publishes nothing", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    await t.put("acme", "at.csv", rows(9, 1), 200);
    const at = (await t.ingest("acme")).result;
    expect(at).toMatchObject({ status: "PASS", good_rows: 9, bad_rows: 1, bad_ratio: 0.1 });
    const stats = t.json(`runs/${at.run_id}/stats.json`);
    expect(stats).toMatchObject({
      total_rows: 10,
      good_rows: 9,
      bad_rows: 1,
      bad_ratio: 0.1,
      by_reason: { INVALID_INTEGER: 1 },
    });
    await t.put("acme", "above.csv", rows(18, 3, "T"), 100);
    const above = (await t.ingest("acme")).result;
    expect(above).toMatchObject({
      status: "FAIL",
      reason_code: "DQ_BAD_RATIO_EXCEEDED",
      good_rows: 18,
      bad_rows: 3,
    });
    expect(t.exists("quarantine/acme/broken/above.csv")).toBe(true);
    expect(t.json(`runs/${above.run_id}/stats.json`)).toMatchObject({
      dq: { status: "FAIL", reason_code: "DQ_BAD_RATIO_EXCEEDED" },
    });
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(at.run_id);
    const sha = above.input_sha256!;
    expect(t.exists(`accepted_runs/acme/${sha.slice(0, 2)}/${sha}.json`)).toBe(false);
  });

  it("0 facts without allow_empty_snapshot → FAIL DQ_EMPTY_SNAPSHOT", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    await t.put("acme", "header-only.csv", csv());
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({
      status: "FAIL",
      reason_code: "DQ_EMPTY_SNAPSHOT",
      total_rows: 0,
    });
  });

  it("0 facts with allow_empty_snapshot publishes an empty state: every SKU now counts as 0", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", CONFIG.replace("allow_empty_snapshot: false", "allow_empty_snapshot: true"));
    await t.put("acme", "full.csv", rows(3, 0), 200);
    expect((await t.ingest("acme")).result.status).toBe("PASS");
    await t.put("acme", "empty.csv", csv(), 100);
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "PASS", good_rows: 0, diff: { added: 0, removed: 3 } });
    expect(await t.stateFacts("acme")).toEqual([]);
  });

  it("fewer facts than min_fact_count → FAIL DQ_MIN_FACT_COUNT", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", CONFIG.replace("min_fact_count: 1", "min_fact_count: 5"));
    await t.put("acme", "small.csv", rows(4, 0));
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "FAIL", reason_code: "DQ_MIN_FACT_COUNT" });
  });
});
