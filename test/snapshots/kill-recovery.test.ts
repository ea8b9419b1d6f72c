import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { openDatabase } from "../../src/infra/db/open-database.ts";
import { HistoryRepo } from "../../src/pipelines/snapshots/repos/history-repo.ts";
import {
  CRASH_STAGES,
  type CrashStage,
} from "../../src/pipelines/snapshots/stages/ingest/crash-hook.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { type CliFixture, cliFixture } from "./support/cli.ts";
import { csv } from "./support/harness.ts";

const D1 = csv("A1,a,5,1.00", "A2,b,3,1.00");
const D2 = csv("A1,a,6,1.00", "A3,c,1,1.00");
// After this point the new state is current (the switch is the commit point).
const COMMITTED: ReadonlySet<CrashStage> = new Set([
  "after-switch",
  "after-accepted",
  "before-archive",
]);

const current = (f: CliFixture) =>
  path.basename(readlinkSync(path.join(f.root, "state", "current", "acme")));
const runJson = async (f: CliFixture) =>
  JSON.parse((await f.run(["snapshots", "run", "acme", "--json"])).stdout);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Manifests that say PASS for content with this SHA-256. */
function passesOf(f: CliFixture, sha: string): string[] {
  const runs = path.join(f.root, "runs");
  return readdirSync(runs).filter((r) => {
    const file = path.join(runs, r, "manifest.json");
    if (!existsSync(file)) return false;
    const m = JSON.parse(readFileSync(file, "utf8"));
    return m.status === "PASS" && m.input_sha256 === sha;
  });
}

describeEachDialect("snapshots: killed at any point", (h) => {
  it.each(CRASH_STAGES)(
    "SIGKILL at %s: a whole state stays published, the next run works, no second PASS",
    async (stage) => {
      const f = await cliFixture(h);
      f.config("acme");
      f.put("acme", "d1.csv", D1, 120);
      const first = await runJson(f);
      expect(first.result.status).toBe("PASS");
      const s1 = first.result.run_id as string;

      f.put("acme", "d2.csv", D2, 60);
      const killed = await f.spawn(["snapshots", "run", "acme"], {
        TIDEMARK_SNAPSHOTS_CRASH_AT: stage,
      });
      expect(killed.code, killed.stderr).not.toBe(0);
      expect(killed.stdout).not.toMatch(/PASS/);
      // Whatever the stage, current points at a complete state: the old one until the commit.
      const during = current(f);
      expect(existsSync(path.join(f.root, "state_store", "acme", during, "facts.ndjson"))).toBe(
        true,
      );
      if (!COMMITTED.has(stage)) expect(during).toBe(s1);

      // The dead process's lease (TTL 1 s) expires; then the next run recovers and carries on.
      await sleep(1200);
      const next = await runJson(f);
      expect(next.kind).toBe("result");
      const sha2 = (await import("node:crypto")).createHash("sha256").update(D2).digest("hex");
      if (COMMITTED.has(stage)) {
        expect(next.result.status).toBe("NO_INPUT");
        expect(next.result.recovery.repaired.length).toBeGreaterThan(0);
      } else {
        expect(next.result).toMatchObject({ status: "PASS", input_filename: "d2.csv" });
        expect(next.result.recovery.interrupted.length).toBe(1);
      }
      const s2 = current(f);
      expect(s2).not.toBe(s1);
      expect(existsSync(path.join(f.root, "inbox", "acme", "d2.csv"))).toBe(false);
      // Only the two published states remain: an unpublished one was removed by recovery.
      expect(readdirSync(path.join(f.root, "state_store", "acme")).sort()).toEqual([s1, s2].sort());
      const accepted = JSON.parse(
        readFileSync(
          path.join(f.root, "accepted_runs", "acme", sha2.slice(0, 2), `${sha2}.json`),
          "utf8",
        ),
      );
      expect(accepted.run_id).toBe(s2);

      // The same file again: a duplicate, never a second PASS.
      f.put("acme", "d2-resent.csv", D2, 30);
      const again = await runJson(f);
      expect(again.result).toMatchObject({
        status: "NO_INPUT",
        inbox: { duplicates: ["d2-resent.csv"] },
      });
      expect(passesOf(f, sha2)).toEqual([s2]);
      expect(current(f)).toBe(s2);
    },
  );

  it.each([...COMMITTED])(
    "SIGKILL at %s: the recovered PASS keeps its figures, stats.json and diff",
    async (stage) => {
      const f = await cliFixture(h);
      f.config("acme");
      f.put("acme", "d1.csv", D1, 120);
      const s1 = (await runJson(f)).result.run_id as string;
      // 9 good rows and 1 bad one (qty not a number); A1 changed, A2 removed, 8 added.
      const rows = Array.from({ length: 8 }, (_, i) => `B${i},b,${i},1.00`);
      const body = csv("A1,a,7,1.00", ...rows, "C1,c,many,1.00");
      f.put("acme", "d2.csv", body, 60);
      const killed = await f.spawn(["snapshots", "run", "acme"], {
        TIDEMARK_SNAPSHOTS_CRASH_AT: stage,
      });
      expect(killed.code, killed.stderr).not.toBe(0);
      await sleep(1200);
      expect((await runJson(f)).result.recovery.repaired).toContain("manifest");

      const s2 = current(f);
      const runDir = path.join(f.root, "runs", s2);
      const manifest = JSON.parse(readFileSync(path.join(runDir, "manifest.json"), "utf8"));
      expect(manifest).toMatchObject({
        status: "PASS",
        recovered: true,
        good_rows: 9,
        bad_rows: 1,
        total_rows: 10,
        bad_ratio: 0.1,
        input_size: Buffer.byteLength(body),
        previous_state_run_id: s1,
        artifacts: { stats: `runs/${s2}/stats.json`, bad: `runs/${s2}/bad.ndjson` },
      });
      const stats = JSON.parse(readFileSync(path.join(runDir, "stats.json"), "utf8"));
      expect(stats.diff).toMatchObject({ added: 8, removed: 1, changed: 1, previous_run_id: s1 });
      const db = await openDatabase(f.target);
      try {
        expect(await new HistoryRepo(db).get(s2)).toMatchObject({
          status: "PASS",
          good_rows: 9,
          bad_rows: 1,
          added: 8,
          removed: 1,
          changed: 1,
        });
      } finally {
        await db.close();
      }
    },
  );
});
