import { existsSync } from "node:fs";
import path from "node:path";
import { formatZodIssues, readYamlFile } from "tidemark/kit";
import { DQ_KEYS, type SupplierConfig, supplierConfigSchema } from "./supplier-config.ts";

/** A usable config, or why the run must FAIL (no DQ config → CONFIG_DQ_MISSING). */
export type SupplierConfigResult =
  | { ok: true; config: SupplierConfig; file: string }
  | { ok: false; reason: "CONFIG_DQ_MISSING" | "CONFIG_INVALID"; detail: string; file: string };

/** `<dir>/<supplier>.yaml`, or `.yml` when only that exists. */
export function supplierConfigFile(configDir: string, supplier: string): string {
  const yaml = path.join(configDir, `${supplier}.yaml`);
  const yml = path.join(configDir, `${supplier}.yml`);
  return !existsSync(yaml) && existsSync(yml) ? yml : yaml;
}

/** Reads and validates a supplier's config; never throws for a user mistake. */
export function loadSupplierConfig(configDir: string, supplier: string): SupplierConfigResult {
  const file = supplierConfigFile(configDir, supplier);
  if (!existsSync(file)) {
    return { ok: false, reason: "CONFIG_DQ_MISSING", detail: `${file}: file not found`, file };
  }
  let raw: unknown;
  try {
    raw = readYamlFile(file);
  } catch (err) {
    return { ok: false, reason: "CONFIG_INVALID", detail: (err as Error).message, file };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, reason: "CONFIG_INVALID", detail: `${file}: expected a mapping`, file };
  }
  const missing = DQ_KEYS.filter((k) => (raw as Record<string, unknown>)[k] === undefined);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: "CONFIG_DQ_MISSING",
      detail: `${file}: missing DQ key(s) ${missing.join(", ")}`,
      file,
    };
  }
  // Parsed once per run: zod's compiled fast path would cost more than it saves.
  const parsed = supplierConfigSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) {
    return {
      ok: false,
      reason: "CONFIG_INVALID",
      detail: formatZodIssues(file, parsed.error, raw),
      file,
    };
  }
  return { ok: true, config: parsed.data, file };
}
