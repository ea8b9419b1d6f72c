import type { Transaction } from "kysely";
import { isoTimestamp, type JobContext, type JobResult, typed } from "../../../engine/index.ts";
import { countIsActiveChanges, updateIsActive } from "../repos/is-active-repo.ts";
import type { RakutenTables } from "../tables.ts";

/**
 * `rakuten.is-active` (JOB-A-01): an item is active when its genre and its shop are known.
 * One UPDATE through the run's fenced commit; rows whose value does not change are not
 * written (their updated_at included). A dry run counts what would change.
 */
export async function runIsActiveJob(ctx: JobContext): Promise<JobResult> {
  const before = await countIsActiveChanges(typed<RakutenTables>(ctx.db));
  if (ctx.dryRun) {
    return {
      summary: {
        dry_run: true,
        would_activate: before.activate,
        would_deactivate: before.deactivate,
      },
    };
  }
  const now = isoTimestamp(ctx.clock.now());
  const updated = await ctx.commit((tx: Transaction<RakutenTables>) => updateIsActive(tx, now));
  return {
    summary: {
      dry_run: false,
      updated,
      activated: before.activate,
      deactivated: before.deactivate,
    },
  };
}
