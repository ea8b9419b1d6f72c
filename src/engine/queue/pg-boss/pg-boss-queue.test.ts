import { expect, it, onTestFinished } from "vitest";
import { describeEachDialect } from "../../../testing/dialects.ts";
import { describeQueueConformance } from "../../../testing/queue/queue-conformance.ts";
import { openQueueFromSpec } from "../../../testing/queue/queue-spec.ts";
import { pgBossOf } from "./pg-boss-of.ts";

describeEachDialect("pg-boss queue", (h) => {
  if (h.dialect !== "postgres") {
    it.skip("pg-boss needs Postgres (set TIDEMARK_TEST_PG_URL)", () => {});
    return;
  }
  describeQueueConformance(
    "pg-boss",
    async () => {
      const target = await h.freshTarget();
      if (target.dialect !== "postgres") throw new Error("expected a Postgres target");
      return {
        spec: {
          engine: "pg-boss",
          url: target.url,
          schema: "pgboss",
          maintenanceIntervalSeconds: 1,
        },
      };
    },
    // pg-boss counts timeouts and delays in whole seconds; its supervisor expires holds.
    { visibilitySeconds: 2, retryDelaySeconds: 1, expirySlackMs: 3_500 },
  );

  it("keeps its tables in the configured schema, queues made with Tidemark's defaults", async () => {
    const target = await h.freshTarget();
    if (target.dialect !== "postgres") throw new Error("expected a Postgres target");
    const spec = {
      engine: "pg-boss",
      url: target.url,
      schema: "tm_boss",
      maintenanceIntervalSeconds: 5,
    } as const;
    const { queue, close } = await openQueueFromSpec(spec);
    onTestFinished(close);
    const id = await queue.send("pipe.items", { a: 1 });
    const boss = pgBossOf(queue);
    expect(boss).toBeDefined();
    expect(await boss!.getQueue("pipe.items")).toMatchObject({
      retryLimit: 3,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: 300,
    });
    const job = await boss!.getJobById("pipe.items", id!);
    expect(job).toMatchObject({ data: { a: 1 }, state: "created", retryLimit: 3 });
    // The job row lives in tm_boss (pg-boss's own schema), not in the default pgboss.
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select schema_name from information_schema.schemata where schema_name in ('tm_boss', 'pgboss')",
      );
      expect(rows.map((r) => r.schema_name)).toEqual(["tm_boss"]);
    } finally {
      await client.end();
    }
  });
});
