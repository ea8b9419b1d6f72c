import type { Kysely } from "kysely";
import type { Database } from "tidemark";
import { typed } from "tidemark/kit";
import type { InputEventTable, RunTable, SnapshotTables } from "../tables.ts";

/** Fields set when a run ends. */
export type RunEnd = Partial<Omit<RunTable, "run_id" | "supplier" | "started_at">> & {
  status: RunTable["status"];
  finished_at: string;
};

/** Reads and writes the snapshots run history (monitoring and recovery). */
export class HistoryRepo {
  readonly #db: Kysely<SnapshotTables>;

  constructor(db: Database) {
    this.#db = typed<SnapshotTables>(db);
  }

  /** Inserts a RUNNING run; false when the run id is already taken (caller draws another). */
  async tryStart(run: {
    run_id: string;
    supplier: string;
    engine_run_id: string | null;
    started_at: string;
  }): Promise<boolean> {
    const res = await this.#db
      .insertInto("snapshots.run")
      .values({
        ...run,
        status: "RUNNING",
        reason_code: null,
        detail: null,
        input_filename: null,
        input_sha256: null,
        good_rows: null,
        bad_rows: null,
        added: null,
        removed: null,
        changed: null,
        finished_at: null,
        published_at: null,
      })
      .onConflict((oc) => oc.column("run_id").doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Records the end of a run. */
  async finish(runId: string, end: RunEnd): Promise<void> {
    await this.#db.updateTable("snapshots.run").set(end).where("run_id", "=", runId).execute();
  }

  /** Runs of the supplier left RUNNING by a dead process (we hold its lock) → INTERRUPTED. */
  async markInterrupted(supplier: string, exceptRunId: string, nowIso: string): Promise<string[]> {
    const rows = await this.#db
      .updateTable("snapshots.run")
      .set({ status: "INTERRUPTED", finished_at: nowIso })
      .where("supplier", "=", supplier)
      .where("status", "=", "RUNNING")
      .where("run_id", "!=", exceptRunId)
      .returning("run_id")
      .execute();
    return rows.map((r) => r.run_id);
  }

  /** Run ids of the supplier recorded RUNNING (read only: what recovery would interrupt). */
  async runningRuns(supplier: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom("snapshots.run")
      .select("run_id")
      .where("supplier", "=", supplier)
      .where("status", "=", "RUNNING")
      .orderBy("run_id")
      .execute();
    return rows.map((r) => r.run_id);
  }

  /** One run. */
  async get(runId: string): Promise<RunTable | undefined> {
    return this.#db
      .selectFrom("snapshots.run")
      .selectAll()
      .where("run_id", "=", runId)
      .executeTakeFirst();
  }

  /** Ensures the run that current points at is recorded as PASS (repair after a crash). */
  async markPublished(
    pointer: { run_id: string; supplier: string; input_filename: string; input_sha256: string },
    publishedAt: string,
    counts: Pick<RunTable, "good_rows" | "bad_rows" | "added" | "removed" | "changed">,
  ): Promise<void> {
    const existing = await this.get(pointer.run_id);
    if (existing?.status === "PASS") return;
    if (!existing) {
      await this.tryStart({
        run_id: pointer.run_id,
        supplier: pointer.supplier,
        engine_run_id: null,
        started_at: publishedAt,
      });
    }
    await this.finish(pointer.run_id, {
      status: "PASS",
      finished_at: existing?.finished_at ?? publishedAt,
      published_at: publishedAt,
      input_filename: pointer.input_filename,
      input_sha256: pointer.input_sha256,
      // A finished row keeps its own figures; a RUNNING or INTERRUPTED one gets the state's.
      good_rows: existing?.good_rows ?? counts.good_rows,
      bad_rows: existing?.bad_rows ?? counts.bad_rows,
      added: existing?.added ?? counts.added,
      removed: existing?.removed ?? counts.removed,
      changed: existing?.changed ?? counts.changed,
      reason_code: null,
      detail: "recovered after an interruption",
    });
  }

  /** Records inbox events in the order given. */
  async addInputEvents(events: Array<Omit<InputEventTable, "id">>): Promise<void> {
    if (events.length === 0) return;
    await this.#db.insertInto("snapshots.input_event").values(events).execute();
  }

  /** The supplier's latest runs, newest first. */
  async recentRuns(supplier: string, limit: number): Promise<RunTable[]> {
    return this.#db
      .selectFrom("snapshots.run")
      .selectAll()
      .where("supplier", "=", supplier)
      .orderBy("started_at", "desc")
      .orderBy("run_id", "desc")
      .limit(limit)
      .execute();
  }

  /** FAIL runs since the last PASS (NO_INPUT and interrupted runs neither count nor reset). */
  async consecutiveFails(supplier: string): Promise<number> {
    const rows = await this.#db
      .selectFrom("snapshots.run")
      .select("status")
      .where("supplier", "=", supplier)
      .where("status", "in", ["PASS", "FAIL"])
      .orderBy("started_at", "desc")
      .orderBy("run_id", "desc")
      .limit(1000)
      .execute();
    let n = 0;
    for (const r of rows) {
      if (r.status !== "FAIL") break;
      n++;
    }
    return n;
  }

  /** How many inbox files in a row (newest first) had the same SHA-256 (drift). */
  async shaStreak(supplier: string): Promise<{ sha256: string | null; count: number }> {
    const rows = await this.#db
      .selectFrom("snapshots.input_event")
      .select(["sha256", "disposition"])
      .where("supplier", "=", supplier)
      .where("disposition", "in", ["selected", "duplicate"])
      .orderBy("id", "desc")
      .limit(1000)
      .execute();
    const first = rows[0]?.sha256 ?? null;
    let count = 0;
    for (const r of rows) {
      if (r.sha256 !== first) break;
      count++;
    }
    return { sha256: first, count };
  }

  /** Every supplier with history. */
  async suppliers(): Promise<string[]> {
    const rows = await this.#db.selectFrom("snapshots.run").select("supplier").distinct().execute();
    return rows.map((r) => r.supplier);
  }
}
