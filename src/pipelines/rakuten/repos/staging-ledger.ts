import type { JobContext } from "tidemark";
import { Ledger } from "tidemark/kit";

/** The ledger (`apl.staging`) every Rakuten entity job shares. */
export const STAGING_TABLE = "apl.staging";

/** The staging ledger, built once per run or command and passed down. */
export function stagingLedger(ctx: Pick<JobContext, "db" | "clock">): Ledger {
  return new Ledger(ctx.db, STAGING_TABLE, ctx.clock);
}
