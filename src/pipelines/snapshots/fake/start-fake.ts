import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FakeOptions, RunningFake } from "tidemark";
import { DEFAULT_CONFIG_DIR, DEFAULT_ROOT } from "../settings.ts";
import { inboxDir } from "../stages/intake/layout/tree.ts";
import { DQ_DEFAULTS, supplierConfigTemplate } from "../stages/intake/suppliers/config-template.ts";
import { csvText, type StockRow, stockRows } from "./supplier-files.ts";

/** The supplier the fake plays. */
export const FAKE_SUPPLIER = "fake-supplier";
/** How often the fake sends a new snapshot. */
const DROP_EVERY_MS = 30_000;

/**
 * The n-th snapshot the fake supplier sends (0 = the first): one catalogue of 120 SKUs whose
 * quantities and prices move a little each time, a few SKUs missing (stock 0) and two new ones.
 */
export function fakeSnapshot(n: number): StockRow[] {
  const rows = stockRows(120, 42);
  if (n === 0) return rows;
  const out = rows
    .filter((_, i) => i % 17 !== n % 17)
    .map((r, i) => ((i + n) % 9 === 0 ? { ...r, qty: (Number(r.qty) + 7 * n) % 500 } : r));
  out.push(
    { sku: `SKU-NEW-${n}-1`, name: "Уровень, 600 мм", qty: n, price: "1299.90", category: "cat00" },
    {
      sku: `SKU-NEW-${n}-2`,
      name: 'Клей "Момент", 125 мл',
      qty: 3 * n,
      price: "349.00",
      category: "cat01",
    },
  );
  return out;
}

/** `20260115T103000Z`: file names sort in the order the files were sent. */
const stamp = (d: Date) => `${d.toISOString().slice(0, 19).replace(/[-:]/g, "")}Z`;

/**
 * `tidemark fake snapshots`: a supplier (`fake-supplier`) with its DQ config under the data
 * dir's default config folder, dropping a full-snapshot CSV into its inbox at start and a
 * changed one every 30 s (written as `*.tmp` and renamed, as its config says). The default
 * layout is used (`etl_data/raw_v1`, `etl_ops/config`): the fake sees the data dir only.
 */
export async function startSnapshotsFake(options: FakeOptions): Promise<RunningFake> {
  const configFile = path.join(options.dataDir, DEFAULT_CONFIG_DIR, `${FAKE_SUPPLIER}.yaml`);
  const inbox = path.join(options.dataDir, DEFAULT_ROOT, ...inboxDir(FAKE_SUPPLIER).split("/"));
  if (existsSync(configFile)) options.print(`supplier config: ${configFile} (kept)`);
  else {
    await mkdir(path.dirname(configFile), { recursive: true });
    await writeFile(
      configFile,
      supplierConfigTemplate(FAKE_SUPPLIER, DQ_DEFAULTS, {
        atomicRename: true,
        categoryColumn: "category",
      }),
    );
    options.print(`supplier config: ${configFile} (written)`);
  }
  await mkdir(inbox, { recursive: true });

  let sent = 0;
  const drop = async () => {
    const rows = fakeSnapshot(sent);
    const name = `stock_${stamp(new Date())}_${String(sent).padStart(3, "0")}.csv`;
    const file = path.join(inbox, name);
    // Uploaded as *.tmp and renamed: the inbox never holds half a file.
    await writeFile(`${file}.tmp`, csvText(rows));
    await rename(`${file}.tmp`, file);
    options.print(`dropped ${name} (${rows.length} SKUs) into ${inbox}`);
    sent++;
  };
  await drop();
  // Ref'd on purpose: `tidemark fake snapshots` has no server keeping the process alive.
  const timer = setInterval(() => {
    drop().catch((err: unknown) => options.print(`drop failed: ${(err as Error).message}`));
  }, DROP_EVERY_MS);
  return {
    env: {},
    hints: [
      `tidemark snapshots run ${FAKE_SUPPLIER}          # ingest the newest file (again after each drop)`,
      `tidemark snapshots read ${FAKE_SUPPLIER} | head -3`,
      `tidemark snapshots status ${FAKE_SUPPLIER}`,
    ],
    async close() {
      clearInterval(timer);
    },
  };
}
