import type { PipelineServices } from "tidemark";
import { utcDayStart } from "tidemark/kit";
import { ENTITY_APPLIERS } from "../jobs/apply/entity-appliers.ts";
import { stagingLedger } from "../repos/staging-ledger.ts";
import { RAKUTEN_ENTITIES, RAKUTEN_SOURCE, type RakutenEntity } from "../stages/normalize/types.ts";

/** One entity's line of `rakuten status`. */
export interface EntityStatus {
  entity: RakutenEntity;
  apply_version: number;
  ledger_rows: number;
  saved_today: number;
  pending_reapply: number;
  last_saved_at: string | null;
}

/** Ledger figures per entity: rows, saved since 00:00 UTC today, pending re-apply, last save. */
export async function rakutenStatus(
  services: Pick<PipelineServices, "db" | "clock">,
): Promise<EntityStatus[]> {
  const ledger = stagingLedger(services);
  const since = utcDayStart(services.clock.now());
  const out: EntityStatus[] = [];
  for (const entity of RAKUTEN_ENTITIES) {
    const version = ENTITY_APPLIERS[entity].version;
    const s = await ledger.stats(RAKUTEN_SOURCE, entity, { since, applyVersion: version });
    out.push({
      entity,
      apply_version: version,
      ledger_rows: s.rows,
      saved_today: s.savedSince,
      pending_reapply: s.pendingReapply,
      last_saved_at: s.lastSavedAt,
    });
  }
  return out;
}
