import { expect, it } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { openQueue } from "./open-queue.ts";
import { runChildren } from "./run-children.ts";

describeEachDialect("a run's children", (h) => {
  it("records every message a job's queue sends under its run, and none of a plain queue", async () => {
    const runtime = await openTestRuntime(h);
    const fromRun = await openQueue({ ...runtime, runId: "run-1" });
    const plain = await openQueue(runtime);
    try {
      const [a, dup, b] = await fromRun.sendBatch("pipe.work", [
        { payload: 1, options: { singletonKey: "k" } },
        { payload: 2, options: { singletonKey: "k" } },
        { payload: 3 },
      ]);
      expect(dup).toBeNull();
      await plain.send("pipe.work", 4);
      const children = await runChildren(runtime.db, ["run-1"]);
      expect(children.map((c) => c.messageId).sort()).toEqual([a, b].sort());
      expect(children.every((c) => c.queue === "pipe.work" && c.runId === "run-1")).toBe(true);
      expect(await runChildren(runtime.db, ["run-2"])).toEqual([]);
    } finally {
      await fromRun.close();
      await plain.close();
    }
  });
});
