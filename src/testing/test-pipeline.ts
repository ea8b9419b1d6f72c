import type { Kysely } from "kysely";
import { z } from "zod";
import { defineJobType, definePipeline } from "../engine/registry/pipeline-definition.ts";
import { Registry } from "../engine/registry/registry.ts";
import { columnTypes, dialectOf, ensureSchema } from "../infra/db/dialect.ts";
import { typed } from "../infra/db/open-database.ts";

/** Tables of the test pipeline: one in a Postgres schema, to exercise schema flattening. */
export interface TestPipelineTables {
  "lab.note": { id: string; body: string; run_id: string; saved_at: string };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/** `test.echo`: writes a note (unless dry-run), can fail or sleep on demand. */
export const echoJobType = defineJobType({
  name: "test.echo",
  description: "test job: records a note; can fail or sleep",
  params: z
    .object({
      message: z.string().min(1),
      fail: z.boolean().default(false),
      sleep_ms: z.number().int().nonnegative().default(0),
      skip: z.boolean().default(false),
    })
    .strict(),
  example: { message: "hello" },
  async run(ctx, params) {
    if (params.sleep_ms > 0) await sleep(params.sleep_ms, ctx.signal);
    if (params.fail) throw new Error(`echo failed: ${params.message}`);
    if (params.skip) return { status: "skipped", summary: {}, message: "asked to skip" };
    if (!ctx.dryRun) {
      await typed<TestPipelineTables>(ctx.db)
        .insertInto("lab.note")
        .values({
          id: ctx.runId,
          body: params.message,
          run_id: ctx.runId,
          saved_at: ctx.jobStartAt.toISOString(),
        })
        .execute();
    }
    return {
      summary: {
        message: params.message,
        job_start_at: ctx.jobStartAt.toISOString(),
        day_start: ctx.dayStart.toISOString(),
        env: ctx.env,
        dry_run: ctx.dryRun,
        limit: ctx.limit ?? null,
        greeting: ctx.environ.TM_TEST_GREETING ?? null,
      },
    };
  },
});

/** A pipeline used only by tests: one job type and one schema-qualified table. */
export const testPipeline = definePipeline({
  name: "lab",
  description: "test pipeline",
  jobTypes: [echoJobType],
  // A pipeline metric read from its own table on each scrape, like snapshots' monitoring figures.
  async metrics(register, runtime) {
    const { Gauge } = await import("prom-client");
    new Gauge({
      name: "tidemark_lab_notes",
      help: "Notes written by test.echo runs.",
      registers: [register],
      async collect() {
        const rows = await typed<TestPipelineTables>(runtime.db)
          .selectFrom("lab.note")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .execute();
        this.set(Number(rows[0]?.n ?? 0));
      },
    });
  },
  migrations: async () => ({
    "0001-note": {
      async up(db: Kysely<object>) {
        await ensureSchema(db, "lab");
        const t = columnTypes(dialectOf(db));
        await db.schema
          .createTable("lab.note")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("body", "text", (c) => c.notNull())
          .addColumn("run_id", "text", (c) => c.notNull())
          .addColumn("saved_at", t.timestamp, (c) => c.notNull())
          .execute();
      },
    },
  }),
});

/** A registry holding only the test pipeline. */
export function testRegistry(): Registry {
  return new Registry([testPipeline]);
}
