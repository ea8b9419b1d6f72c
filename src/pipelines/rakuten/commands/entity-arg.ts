import { UsageError } from "tidemark";
import { RAKUTEN_ENTITIES, type RakutenEntity } from "../stages/normalize/types.ts";

/** The entity named on the command line, or a usage error (exit 2) listing the entities. */
export function entityArg(value: unknown): RakutenEntity {
  const name = String(value);
  if ((RAKUTEN_ENTITIES as readonly string[]).includes(name)) return name as RakutenEntity;
  throw new UsageError(
    `unknown entity ${JSON.stringify(name)}; entities: ${RAKUTEN_ENTITIES.join(", ")}`,
  );
}
