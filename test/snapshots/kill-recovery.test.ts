import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { CRASH_STAGES, type CrashStage } from "../../src/pipelines/snapshots/ingest/crash-hook.ts";
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

describeEachDialect("snapshots: killed at any point (§15)", (h) => {
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
});
