import { readdirSync } from "node:fs";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { CONFIG, csv, snapshotHarness } from "./support/harness.ts";

const A = csv("A1,Молоток,5,100.00");
const B = csv("A1,Молоток,6,100.00");
const C = csv("A1,Молоток,7,100.00");

describeEachDialect("snapshots inbox", (h) => {
  it("newest unique file by mtime is processed; older unique ones are obsolete; the inbox ends empty", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    // Names sort the other way round: only mtime decides.
    await t.put("acme", "z-oldest.csv", A, 300);
    await t.put("acme", "a-newest.csv", C, 100);
    await t.put("acme", "m-middle.csv", B, 200);
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "PASS", input_filename: "a-newest.csv" });
    expect(result.inbox.obsolete.sort()).toEqual(["m-middle.csv", "z-oldest.csv"]);
    expect(t.exists("archive/acme/obsolete/z-oldest.csv")).toBe(true);
    expect(t.exists("archive/acme/obsolete/m-middle.csv")).toBe(true);
    expect(t.exists("archive/acme/accepted/a-newest.csv")).toBe(true);
    expect(readdirSync(t.file("inbox/acme"))).toEqual([]);
    expect((await t.stateFacts("acme"))[0]).toMatchObject({ payload: { qty: 7 } });
  });

  it("files whose SHA-256 was accepted are duplicates: quarantined, never a second PASS", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    await t.put("acme", "day1.csv", A, 100);
    const first = (await t.ingest("acme")).result;
    expect(first.status).toBe("PASS");
    const sha = first.input_sha256!;
    expect(t.json(`accepted_runs/acme/${sha.slice(0, 2)}/${sha}.json`)).toMatchObject({
      run_id: first.run_id,
    });
    await t.put("acme", "day1-again.csv", A, 50);
    const { report, result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "NO_INPUT" });
    expect(result.inbox.duplicates).toEqual(["day1-again.csv"]);
    expect(report.status).toBe("skipped");
    expect(t.exists("quarantine/acme/duplicates/day1-again.csv")).toBe(true);
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(first.run_id);
  });

  it("an accepted duplicate newer than a unique file does not hide it; copies in one batch are duplicates", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    await t.put("acme", "a.csv", A, 500);
    await t.ingest("acme");
    await t.put("acme", "b.csv", B, 300);
    await t.put("acme", "b-copy.csv", B, 400);
    await t.put("acme", "a-resent.csv", A, 100);
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "PASS", input_filename: "b.csv" });
    expect(result.inbox.duplicates.sort()).toEqual(["a-resent.csv", "b-copy.csv"]);
    expect(result.inbox.obsolete).toEqual([]);
  });

  it("a file still growing (mtime inside file_stability_window) and *.tmp uploads are left alone", async () => {
    const t = await snapshotHarness(h);
    t.config("acme", CONFIG.replace("file_stability_window: 0", "file_stability_window: 30"));
    await t.put("acme", "fresh.csv", A, 5);
    await t.put("acme", "upload.csv.tmp", B, 3600);
    let { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "NO_INPUT" });
    expect(result.inbox.unstable).toEqual(["fresh.csv"]);
    expect(result.inbox.in_flight).toEqual(["upload.csv.tmp"]);
    expect(t.exists("inbox/acme/fresh.csv")).toBe(true);
    t.clock.advance(30_000);
    ({ result } = await t.ingest("acme"));
    expect(result).toMatchObject({ status: "PASS", input_filename: "fresh.csv" });
    expect(t.exists("inbox/acme/upload.csv.tmp")).toBe(true);
  });

  it("with atomic_rename a fresh (non-.tmp) file is complete at once", async () => {
    const t = await snapshotHarness(h);
    t.config(
      "acme",
      CONFIG.replace("file_stability_window: 0", "file_stability_window: 30\natomic_rename: true"),
    );
    await t.put("acme", "renamed.csv", A, 0);
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "PASS", input_filename: "renamed.csv" });
  });

  it("an empty inbox is NO_INPUT (exit 0, no manifest); a dry run moves nothing", async () => {
    const t = await snapshotHarness(h);
    t.config("acme");
    let { report, result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "NO_INPUT", manifest_path: null });
    expect(report.status).toBe("skipped");
    await t.put("acme", "x.csv", A, 200);
    await t.put("acme", "y.csv", B, 100);
    ({ result } = await t.ingest("acme", { dryRun: true }));
    expect(result).toMatchObject({ status: "PLANNED", detail: "dry run: would process y.csv" });
    expect(result.inbox.obsolete).toEqual(["x.csv"]);
    expect(readdirSync(t.file("inbox/acme")).sort()).toEqual(["x.csv", "y.csv"]);
    expect(await t.storage.readCurrent("acme")).toBeUndefined();
  });

  it("no DQ config → FAIL CONFIG_DQ_MISSING; the file waits in the inbox for the config", async () => {
    const t = await snapshotHarness(h);
    await t.put("acme", "x.csv", A);
    const { result } = await t.ingest("acme");
    expect(result).toMatchObject({
      status: "FAIL",
      reason_code: "CONFIG_DQ_MISSING",
      input_filename: null,
    });
    expect(t.json(`runs/${result.run_id}/manifest.json`)).toMatchObject({
      status: "FAIL",
      fail_reason: "CONFIG_DQ_MISSING",
    });
    expect(t.exists("inbox/acme/x.csv")).toBe(true);
    t.config("acme");
    expect((await t.ingest("acme")).result.status).toBe("PASS");
  });
});
