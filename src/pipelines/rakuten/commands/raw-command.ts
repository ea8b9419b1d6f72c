import { type CliServices, NotFoundError, UsageError } from "tidemark";
import { RawStore, rawSegmentProblem } from "tidemark/kit";
import { stagingLedger } from "../repos/staging-ledger.ts";
import { RAKUTEN_SOURCE, type RakutenEntity } from "../stages/normalize/types.ts";

/**
 * `tidemark rakuten raw <entity> <source_id> [--hash H] [--json]`: the target's raw history
 * (every stored version, oldest first, the ledger's current one marked), then one version's
 * normalized document as stored: `--hash` (a full hash or a unique prefix), else the current.
 */
export async function rawCommand(
  services: CliServices,
  entity: RakutenEntity,
  sourceId: string,
  opts: { hash?: string; json?: boolean },
): Promise<void> {
  // An id no raw key can hold ('/', '..', a control character) is a usage error, not a crash.
  const bad = rawSegmentProblem(sourceId);
  if (bad !== undefined) {
    throw new UsageError(`source_id ${JSON.stringify(sourceId)} ${bad}: no raw key can hold it`);
  }
  const pipeline = await services.services();
  const raw = new RawStore(pipeline.blobs, pipeline.config.env);
  const target = { source: RAKUTEN_SOURCE, entity, sourceId };
  const versions = await raw.versions(target);
  if (versions.length === 0) {
    throw new NotFoundError(`no raw document of ${entity} ${JSON.stringify(sourceId)}`);
  }
  const current = await stagingLedger(pipeline).get(RAKUTEN_SOURCE, entity, sourceId);
  let chosen = versions.find((v) => v.contentHash === current?.content_hash) ?? versions.at(-1);
  if (opts.hash !== undefined) {
    const wanted = opts.hash.trim().toLowerCase();
    const matches = versions.filter((v) => v.contentHash.startsWith(wanted));
    if (wanted === "" || matches.length === 0) {
      throw new NotFoundError(`${entity} ${sourceId} has no raw version with hash ${opts.hash}`);
    }
    if (matches.length > 1) {
      throw new UsageError(
        `hash prefix ${opts.hash} matches ${matches.length} versions; give more of it`,
      );
    }
    chosen = matches[0];
  }
  if (chosen === undefined) return;
  const body = await raw.getText(chosen.key);
  if (opts.json) {
    services.print(
      JSON.stringify(
        {
          entity,
          source_id: sourceId,
          current_hash: current?.content_hash ?? null,
          versions: versions.map((v) => ({ hash: v.contentHash, saved_at: v.savedAt, key: v.key })),
          shown: { hash: chosen.contentHash, document: JSON.parse(body) as unknown },
        },
        null,
        2,
      ),
    );
    return;
  }
  services.printTable(
    ["SAVED AT", "HASH", "CURRENT", "SHOWN"],
    versions.map((v) => [
      v.savedAt,
      v.contentHash,
      v.contentHash === current?.content_hash ? "yes" : null,
      v === chosen ? "*" : null,
    ]),
  );
  services.print(`\n${chosen.key}`);
  services.print(body);
}
