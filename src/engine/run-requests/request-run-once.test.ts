import { expect, it } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { type DialectHarness, describeEachDialect } from "../../testing/dialects.ts";
import { openEchoJobQueue } from "../../testing/echo-job-queue.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { UsageError } from "../errors.ts";
import type { Queue } from "../queue/queue.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { IdempotencyKeyRepo } from "./idempotency-key-repo.ts";
import {
  IDEMPOTENCY_KEY_TTL_MS,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  requestRunOnce,
} from "./request-run-once.ts";
import { API_REQUESTER } from "./run-request.ts";
import type { RunRequestsTable } from "./run-request-repo.ts";

async function setup(h: DialectHarness) {
  const clock = new ManualClock();
  return { ...(await openEchoJobQueue(h, { clock })), clock };
}

/** Run requests recorded for job j (one per message sent). */
async function requestsOfJ(rt: Runtime): Promise<number> {
  const row = await typed<{ tm_run_requests: RunRequestsTable }>(rt.db)
    .selectFrom("tm_run_requests")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("job_name", "=", "j")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const ask = (rt: Runtime, queue: Queue, key: string, options: { dryRun?: boolean } = {}) =>
  requestRunOnce(rt, queue, { job: "j", requestedBy: API_REQUESTER, ...options }, key);

describeEachDialect("run requests with an Idempotency-Key", (h) => {
  it("a retry with the same key answers the first run and queues nothing more", async () => {
    const { rt, queue } = await setup(h);
    const first = await ask(rt, queue, "key-1");
    const again = await ask(rt, queue, "key-1");
    expect(first.replayed).toBe(false);
    expect(again).toMatchObject({ runId: first.runId, messageId: first.messageId, replayed: true });
    const other = await ask(rt, queue, "key-2");
    expect(other.runId).not.toBe(first.runId);
    expect(await requestsOfJ(rt)).toBe(2);
  });

  it("the same key with other options is refused, naming both, and queues nothing", async () => {
    const { rt, queue } = await setup(h);
    await ask(rt, queue, "key-1");
    const err = await ask(rt, queue, "key-1", { dryRun: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdempotencyKeyReusedError);
    expect((err as Error).message).toBe(
      "Idempotency-Key: the key was first used for job j (dryRun false, limit none), not job j (dryRun true, limit none)",
    );
    expect(await requestsOfJ(rt)).toBe(1);
  });

  it("a key is remembered for 24 hours, then queues a new run", async () => {
    const { rt, queue, clock } = await setup(h);
    const first = await ask(rt, queue, "key-1");
    clock.advance(IDEMPOTENCY_KEY_TTL_MS - 1000);
    expect((await ask(rt, queue, "key-1")).runId).toBe(first.runId);
    clock.advance(2000);
    const later = await ask(rt, queue, "key-1");
    expect(later).toMatchObject({ replayed: false });
    expect(later.runId).not.toBe(first.runId);
    expect(await requestsOfJ(rt)).toBe(2);
  });

  it("a key whose first request never got queued is in flight for a minute, then taken over", async () => {
    const { rt, queue, clock } = await setup(h);
    // The first request's process died between claiming the key and sending the message.
    await new IdempotencyKeyRepo(rt.db).claim({
      key: "key-1",
      fingerprint: JSON.stringify(["j", false, null]),
      runId: "j_20260115T093000Z_aaaaaa",
      createdAt: clock.now().toISOString(),
    });
    await expect(ask(rt, queue, "key-1")).rejects.toBeInstanceOf(IdempotencyKeyInFlightError);
    expect(await requestsOfJ(rt)).toBe(0);
    clock.advance(61_000);
    const taken = await ask(rt, queue, "key-1");
    expect(taken.replayed).toBe(false);
    expect(taken.runId).not.toBe("j_20260115T093000Z_aaaaaa");
    expect((await ask(rt, queue, "key-1")).runId).toBe(taken.runId);
    expect(await requestsOfJ(rt)).toBe(1);
  });

  it("a send that fails frees the key, so the client's retry queues the run", async () => {
    const { rt, queue } = await setup(h);
    const failing: Queue = Object.create(queue, {
      send: { value: async () => Promise.reject(new Error("queue down")) },
    });
    await expect(ask(rt, failing, "key-1")).rejects.toThrow("queue down");
    const retry = await ask(rt, queue, "key-1");
    expect(retry.replayed).toBe(false);
    expect(await requestsOfJ(rt)).toBe(1);
  });

  it("a key that is not 1 to 255 printable characters is a usage error", async () => {
    const { rt, queue } = await setup(h);
    for (const bad of ["", "a b", "x".repeat(256), "ключ"]) {
      await expect(ask(rt, queue, bad)).rejects.toBeInstanceOf(UsageError);
    }
    expect(await requestsOfJ(rt)).toBe(0);
  });
});
