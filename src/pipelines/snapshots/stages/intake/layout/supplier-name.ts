/** ASCII letters, digits, `-` and `_`, starting with a letter or digit: safe as a folder and key. */
export const SUPPLIER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** True when name is a valid supplier name (nothing that could escape the root). */
export function isSupplierName(name: string): boolean {
  return SUPPLIER_NAME.test(name);
}

/** Returns the name, or a UsageError (exit 2) explaining the rule. */
export function checkSupplierName(name: string): string {
  if (!isSupplierName(name)) {
    throw new UsageError(
      `invalid supplier name ${JSON.stringify(name)}: use 1-64 letters, digits, "-" or "_", starting with a letter or digit`,
    );
  }
  return name;
}

import { UsageError } from "tidemark";
