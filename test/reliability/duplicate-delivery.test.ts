import { expect, it } from "vitest";
import { requestRun } from "../../src/engine/run-requests/request-run.ts";
import {
  API_REQUESTER,
  RUN_QUEUE,
  RUN_SEND_DEFAULTS,
} from "../../src/engine/run-requests/run-request.ts";
import { runRequestHandler } from "../../src/engine/run-requests/run-request-handler.ts";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import { startQueueWorkers } from "../../src/engine/workers/queue-workers.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openEchoJobQueue } from "../../src/testing/echo-job-queue.ts";

describeEachDialect("run requests delivered twice at once", (h) => {
  it("two workers handed the same request at the same moment make one run", async () => {
    const { rt, queue, job } = await openEchoJobQueue(h);
    const requests = [];
    for (let i = 0; i < 15; i++) {
      const queued = await requestRun(rt, queue, { job, requestedBy: API_REQUESTER });
      // The broker's duplicate of the same request, waiting right beside it.
      await queue.send(
        RUN_QUEUE,
        { job: "j", dryRun: false, limit: null, requestedBy: API_REQUESTER, runId: queued.runId },
        RUN_SEND_DEFAULTS,
      );
      requests.push(queued.runId);
    }
    for (let w = 0; w < 2; w++) {
      await startQueueWorkers(rt, queue, [runRequestHandler], { work: { pollIntervalMs: 10 } });
    }
    const runs = new RunRepo(rt.db);
    // Every request ran once; then long enough for any duplicate's second run to show up.
    for (let i = 0; i < 1500; i++) {
      const all = await runs.list({ jobName: "j", limit: 1000 });
      if (all.length >= requests.length && all.every((r) => r.finishedAt)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 500));
    const all = await runs.list({ jobName: "j", limit: 1000 });
    expect(all.map((r) => r.runId).sort()).toEqual([...requests].sort());
  }, 60_000);
});
