import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import type { PluginPackageJson } from "./plugin-module.ts";

let own: string | undefined;

/** This Tidemark's version: its package.json, found above this module (sources or dist). */
export function tidemarkVersion(): string {
  if (own) return own;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      if (pkg.name === "tidemark" && typeof pkg.version === "string") {
        own = pkg.version as string;
        return own;
      }
    } catch {
      // No package.json here: look further up.
    }
    if (path.dirname(dir) === dir) throw new Error("tidemark's package.json not found");
  }
}

/**
 * Why a plugin package cannot run on this Tidemark (its `peerDependencies` or `engines` range on
 * `tidemark` leaves this version out, or is no range), or undefined when it can.
 */
export function rangeProblem(
  pkg: PluginPackageJson,
  version = tidemarkVersion(),
): string | undefined {
  const peer = pkg.peerDependencies?.tidemark;
  const engine = pkg.engines?.tidemark;
  for (const [where, range] of [
    ["peerDependencies", peer],
    ["engines", engine],
  ] as const) {
    if (range === undefined) continue;
    if (semver.validRange(range) === null)
      return `${where}.tidemark ${JSON.stringify(range)} is not a version range`;
    if (!semver.satisfies(version, range, { includePrerelease: true })) {
      return `needs tidemark ${range} (${where}), this is tidemark ${version}`;
    }
  }
  return undefined;
}
