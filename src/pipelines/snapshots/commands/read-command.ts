import { type CliServices, NotFoundError } from "tidemark";
import type { SnapshotSettings } from "../settings.ts";
import { checkSupplierName } from "../stages/intake/layout/supplier-name.ts";
import { STATE_FILES } from "../stages/intake/layout/tree.ts";
import { requireKnownSupplier } from "../stages/intake/suppliers/known-supplier.ts";
import { openStorage } from "../stages/publish/storage/open-storage.ts";

/**
 * `tidemark snapshots read <supplier>`: the sanctioned way to read state (forbids reading
 * state_store directly). Resolves state/current once, then streams that state's facts, so a
 * switch during the read never mixes two snapshots.
 */
export async function readCommand(services: CliServices, supplierName: string): Promise<void> {
  const supplier = checkSupplierName(supplierName);
  const pipeline = await services.services<SnapshotSettings>();
  await requireKnownSupplier(pipeline, supplier);
  const storage = openStorage(pipeline.settings, pipeline.blobs);
  const pointer = await storage.readCurrent(supplier);
  if (!pointer) throw new NotFoundError(`supplier ${supplier} has no published state`);
  const stream = await storage.openRead(`${pointer.state_path}/${STATE_FILES.facts}`);
  stream.setEncoding("utf8");
  // Raw chunks: the facts file is NDJSON already. A slow reader (a pipe into another program)
  // holds the reading back; a reader that went away (`| head`) ends it.
  for await (const chunk of stream) {
    if (!(await services.write(chunk as string))) return;
  }
}
