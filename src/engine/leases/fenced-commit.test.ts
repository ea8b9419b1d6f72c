import type { Transaction } from "kysely";
import { expect, it } from "vitest";
import { z } from "zod";
import { typed } from "../../infra/db/open-database.ts";
import { type DialectHarness, describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { type TestPipelineTables, testPipeline } from "../../testing/test-pipeline.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { LeaseLostError } from "../errors.ts";
import { defineJobType, definePipeline } from "../registry/pipeline-definition.ts";
import { Registry } from "../registry/registry.ts";
import { executeRun } from "../runs/job-runner.ts";
import { RunRepo } from "../runs/run-repo.ts";
import { LeaseStore } from "./lease-store.ts";

/** A job that waits until released, then commits a note under its lease (a paused process). */
function gatedPipeline() {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let reachedGate!: () => void;
  const atGate = new Promise<void>((r) => {
    reachedGate = r;
  });
  const job = defineJobType({
    name: "fence.gated",
    description: "waits at a gate, then commits",
    params: z.object({ note: z.string(), swallow: z.boolean().optional() }).strict(),
    example: { note: "x" },
    async run(ctx, params) {
      reachedGate();
      await gate;
      if (params.swallow) {
        // A job that counts a failed commit as a failed batch and carries on.
        try {
          await ctx.commit(async () => undefined);
        } catch {
          return { summary: { failed_batches: 1 } };
        }
      }
      await ctx.commit(async (tx: Transaction<TestPipelineTables>) => {
        await tx
          .insertInto("lab.note")
          .values({
            id: ctx.runId,
            body: params.note,
            run_id: ctx.runId,
            saved_at: "2026-05-01T00:00:00.000Z",
          })
          .execute();
      });
      return { summary: { committed: params.note } };
    },
  });
  const pipeline = definePipeline({ name: "fence", description: "fencing test", jobTypes: [job] });
  return { registry: new Registry([testPipeline, pipeline]), release, atGate };
}

/** Run A of job `a` (lease TTL 60 s), stopped at its gate before it commits. */
async function startGatedRun(h: DialectHarness, swallow = false) {
  const clock = new ManualClock("2026-05-01T00:00:00.000Z");
  const { registry, release, atGate } = gatedPipeline();
  const rt = await openTestRuntime(h, { clock, registry });
  const running = executeRun(rt, {
    jobName: "a",
    jobType: "fence.gated",
    params: { note: "from A", ...(swallow ? { swallow } : {}) },
    leaseTtlMs: 60_000,
  });
  await atGate;
  return { clock, rt, release, running };
}

describeEachDialect("fenced commits", (h) => {
  it("a run whose lease was taken over commits nothing and ends abandoned", async () => {
    const { clock, rt, release, running } = await startGatedRun(h);
    // A is "paused" past its TTL; B takes the lease over (a newer token).
    clock.advance(61_000);
    const b = await rt.leases.tryAcquire("job:a", "run-b", 60_000);
    expect(b?.holder).toBe("run-b");
    release();
    const report = await running;
    expect(report.status).toBe("abandoned");
    expect(report.error).toMatch(/^lease lost: job:a is no longer held by a_/);
    const notes = await typed<TestPipelineTables>(rt.db)
      .selectFrom("lab.note")
      .selectAll()
      .execute();
    expect(notes).toEqual([]);
    expect((await new RunRepo(rt.db).get(report.runId))?.status).toBe("abandoned");
    expect((await rt.leases.get("job:a"))?.holder).toBe("run-b");
  });

  it("a run whose job swallowed the lost-lease error still ends abandoned, not succeeded", async () => {
    const { clock, rt, release, running } = await startGatedRun(h, true);
    clock.advance(61_000);
    expect(await rt.leases.tryAcquire("job:a", "run-b", 60_000)).toBeDefined();
    release();
    const report = await running;
    expect(report.status).toBe("abandoned");
    expect(report.error).toMatch(/^lease lost: job:a/);
    expect((await new RunRepo(rt.db).get(report.runId))?.status).toBe("abandoned");
  });

  it("a run that still holds its lease commits, and the commit renews it", async () => {
    const { clock, rt, release, running } = await startGatedRun(h);
    // Expired but nobody took it: the token still matches, so the commit may go ahead.
    clock.advance(61_000);
    release();
    const report = await running;
    expect(report.status).toBe("succeeded");
    const notes = await typed<TestPipelineTables>(rt.db)
      .selectFrom("lab.note")
      .selectAll()
      .execute();
    expect(notes.map((n) => n.body)).toEqual(["from A"]);
  });

  it("the fencing token grows on every take-over; a stale token cannot commit", async () => {
    const clock = new ManualClock("2026-05-01T00:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const leases = new LeaseStore(rt.db, clock);
    const first = await leases.tryAcquire("k", "one", 1_000);
    clock.advance(2_000);
    const second = await leases.tryAcquire("k", "two", 1_000);
    expect(second!.token).toBe(first!.token + 1);
    let ran = false;
    await expect(
      leases.fencedCommit(first!, 1_000, async () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(ran).toBe(false);
    // Same holder name, older token: still refused.
    await expect(
      leases.fencedCommit({ ...second!, token: first!.token }, 1_000, async () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(ran).toBe(false);
    expect(await leases.fencedCommit(second!, 1_000, async () => "ok")).toBe("ok");
  });

  it("an effect that throws rolls the transaction back and keeps the lease", async () => {
    const clock = new ManualClock("2026-05-01T00:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const lease = (await rt.leases.tryAcquire("k", "one", 1_000))!;
    await expect(
      rt.leases.fencedCommit(lease, 1_000, async (tx: Transaction<TestPipelineTables>) => {
        await tx
          .insertInto("lab.note")
          .values({ id: "n", body: "b", run_id: "r", saved_at: "2026-05-01T00:00:00.000Z" })
          .execute();
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(
      await typed<TestPipelineTables>(rt.db).selectFrom("lab.note").selectAll().execute(),
    ).toEqual([]);
    expect((await rt.leases.get("k"))?.holder).toBe("one");
  });
});
