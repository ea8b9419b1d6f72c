import { expect, it } from "vitest";
import { describeEachDialect } from "../../../testing/dialects.ts";
import { openQueueFromSpec } from "../../../testing/queue/queue-spec.ts";

describeEachDialect("pg-boss queue creation", (h) => {
  it.skipIf(h.dialect !== "postgres")(
    "many processes sending to new queues at once on a fresh database: no deadlock, all sent",
    { timeout: 120_000 },
    async () => {
      const target = await h.freshTarget();
      if (target.dialect !== "postgres") return;
      const spec = {
        engine: "pg-boss" as const,
        url: target.url,
        schema: "pgboss",
        maintenanceIntervalSeconds: 30,
      };
      // Each opened queue is what one `tidemark run <job> --queue` process holds.
      const opened = await Promise.all(Array.from({ length: 8 }, () => openQueueFromSpec(spec)));
      try {
        const names = ["tidemark.run", "a.one", "a.two", "a.three"];
        const sends = opened.flatMap(({ queue }) => names.map((n) => queue.send(n, { n })));
        const ids = await Promise.all(sends);
        expect(ids.every((id) => typeof id === "string")).toBe(true);
        const stats = await opened[0]!.queue.stats();
        for (const n of names) expect(stats.find((s) => s.queue === n)?.queued).toBe(8);
      } finally {
        await Promise.all(opened.map((o) => o.close()));
      }
    },
  );
});
