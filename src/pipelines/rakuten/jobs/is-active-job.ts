import type { Transaction } from "kysely";
import type { JobContext, JobResult } from "tidemark";
import { isoTimestamp, typed } from "tidemark/kit";
import { countIsActiveChanges, updateIsActive } from "../repos/is-active-repo.ts";
import type { RakutenTables } from "../tables.ts";

/**
 * `rakuten.is-active`: an item is active when its genre and its shop are known.
 * One UPDATE through the run's fenced commit; rows whose value does not change are not
 * written (their updated_at included). `--limit N` changes at most N items (lowest ids first);
 * a dry run counts what would change.
 */
export async function runIsActiveJob(ctx: JobContext): Promise<JobResult> {
  if (ctx.dryRun) {
    const would = await countIsActiveChanges(typed<RakutenTables>(ctx.db), ctx.limit);
    return {
      summary: {
        dry_run: true,
        would_activate: would.activate,
        would_deactivate: would.deactivate,
      },
    };
  }
  const now = isoTimestamp(ctx.clock.now());
  // Counted from the rows the UPDATE wrote, inside the commit (not from a read before it).
  const done = await ctx.commit((tx: Transaction<RakutenTables>) =>
    updateIsActive(tx, now, ctx.limit),
  );
  return {
    summary: {
      dry_run: false,
      updated: done.activate + done.deactivate,
      activated: done.activate,
      deactivated: done.deactivate,
    },
  };
}
