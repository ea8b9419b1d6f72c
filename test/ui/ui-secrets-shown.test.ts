// What a run page, the runs list and the queue page show of errors, summaries and payloads:
// secrets in them (a key in a URL, a bearer token, a password field) are masked, as in the log;
// a failed target that is an object reads as JSON; many dead letters say how many are hidden.
import { expect, it } from "vitest";
import type { Queue, QueueMessageInfo, QueueStats } from "../../src/engine/queue/queue.ts";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi } from "./ui-app.ts";

const KEY = "AIzaSecretKey0123456789";
const BEARER = "bearerSecret987654321";
const PASSWORD = "hunter2-password";

/** Only what the queue page reads: one queue with `dead` dead letters. */
function fakeQueue(dead: number): Queue {
  const letters: QueueMessageInfo[] = Array.from({ length: dead }, (_, i) => ({
    id: `msg-${i}`,
    queue: "tidemark.run",
    state: "dead",
    payload: { job: "j", url: `https://api.example.com/v1?key=${KEY}`, password: PASSWORD },
    attempts: 3,
    createdAt: "2026-01-15T09:00:00.000Z",
    lastError: `GET https://api.example.com/v1?key=${KEY} answered 500`,
  }));
  const stats: QueueStats[] = [
    { queue: "tidemark.run", queued: 0, active: 0, deadLettered: dead, oldestQueuedAgeSeconds: 0 },
  ];
  const queue: Partial<Queue> = {
    engine: "embedded",
    stats: async () => stats,
    deadLetters: async <T>(_q: string, o?: { limit?: number }) =>
      letters.slice(0, o?.limit ?? 100) as QueueMessageInfo<T>[],
    messages: async <T>(_q: string, o?: { limit?: number }) =>
      letters.slice(0, o?.limit ?? 100) as QueueMessageInfo<T>[],
  };
  return queue as Queue;
}

describeEachDialect("dashboard keeps secrets off its pages", (h) => {
  it("a run's error, summary and failed targets are shown with their secrets masked", async () => {
    const runtime = await openTestRuntime(h);
    const now = new Date().toISOString();
    await new RunRepo(runtime.db).insertFinished({
      runId: "leaky_1",
      jobName: "leaky",
      jobType: "test.echo",
      status: "failed",
      startedAt: now,
      finishedAt: now,
      summary: {
        endpoint: `https://user:${PASSWORD}@db.example.com/x`,
        failures: [
          { target: { id: 7, sku: "A-1" }, kind: "fetch", message: `Bearer ${BEARER} refused` },
        ],
      },
      error: `GET https://api.example.com/v1?key=${KEY} answered 403`,
      dryRun: false,
      leaseKey: "job:leaky",
      host: "h",
      pid: 1,
    });
    const { get } = await openUi(runtime);
    for (const path of ["/ui/runs/leaky_1", "/ui/runs"]) {
      const page = await get(path);
      expect(page.status).toBe(200);
      for (const secret of [KEY, BEARER, PASSWORD]) expect(page.text).not.toContain(secret);
      expect(page.text).toContain("[REDACTED]");
    }
    const run = await get("/ui/runs/leaky_1");
    expect(run.text).toContain("{&quot;id&quot;:7,&quot;sku&quot;:&quot;A-1&quot;}");
    expect(run.text).not.toContain("[object Object]");
    // No stored job of that name: said as it is, not "the job no longer exists".
    expect(run.text).toContain("no job named leaky is stored");
  });

  it("dead letters: secrets masked, each button named by its message, the hidden ones counted", async () => {
    const { get } = await openUi(await openTestRuntime(h), { queue: fakeQueue(60) });
    const page = await get("/ui/queue");
    expect(page.status).toBe(200);
    for (const secret of [KEY, PASSWORD]) expect(page.text).not.toContain(secret);
    expect(page.text).toContain("The newest 50 messages.");
    expect(page.text).toContain('aria-label="Re-drive message msg-0"');
    expect(page.text).not.toContain("msg-50");
  });
});
