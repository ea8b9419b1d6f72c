import { type Database, typed } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { Clock } from "../clock/clock.ts";
import { isoTimestamp } from "../clock/clock.ts";
import type { EngineTables } from "../engine-tables.ts";
import { DriverQueue } from "./driver-queue.ts";
import type { SendOptions } from "./queue.ts";
import type { QueueDriver } from "./queue-driver.ts";

/** Rows written per statement (4 bound values each). */
const CHUNK = 500;

/** A message a run sent, as recorded. */
export interface RunChild {
  runId: string;
  queue: string;
  messageId: string;
}

/**
 * A queue opened by a running job (`openQueue(ctx)`): every message it sends is recorded as a
 * child of the run, so the dashboard can show that work's state on the run and its job.
 */
export class RunChildrenQueue extends DriverQueue {
  constructor(
    driver: QueueDriver,
    logger: Logger,
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly runId: string,
  ) {
    super(driver, logger);
  }

  override async sendBatch<T>(
    queue: string,
    items: ReadonlyArray<{ payload: T; options?: SendOptions }>,
  ): Promise<Array<string | null>> {
    const ids = await super.sendBatch(queue, items);
    const sent = ids.filter((id): id is string => id !== null);
    const at = isoTimestamp(this.clock.now());
    const rows = sent.map((id) => ({ run_id: this.runId, queue, message_id: id, sent_at: at }));
    for (let i = 0; i < rows.length; i += CHUNK) {
      await typed<EngineTables>(this.db)
        .insertInto("tm_run_children")
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    return ids;
  }
}

/** The messages runs sent, oldest first, at most `limit` per call. */
export async function runChildren(
  db: Database,
  runIds: readonly string[],
  limit = 1000,
): Promise<RunChild[]> {
  if (runIds.length === 0) return [];
  const rows = await typed<EngineTables>(db)
    .selectFrom("tm_run_children")
    .select(["run_id", "queue", "message_id"])
    .where("run_id", "in", [...runIds])
    .orderBy("message_id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ runId: r.run_id, queue: r.queue, messageId: r.message_id }));
}
