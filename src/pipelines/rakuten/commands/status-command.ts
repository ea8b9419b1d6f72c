import type { CliServices } from "tidemark";
import { rakutenStatus } from "../monitoring/status.ts";

/** `tidemark rakuten status [--json]`. */
export async function statusCommand(
  services: CliServices,
  opts: { json?: boolean },
): Promise<void> {
  const statuses = await rakutenStatus(await services.services());
  if (opts.json) {
    services.printJson(statuses);
    return;
  }
  services.printTable(
    ["ENTITY", "LEDGER ROWS", "SAVED TODAY", "PENDING RE-APPLY", "LAST SAVED", "APPLY VERSION"],
    statuses.map((s) => [
      s.entity,
      s.ledger_rows,
      s.saved_today,
      s.pending_reapply,
      s.last_saved_at,
      s.apply_version,
    ]),
  );
}
