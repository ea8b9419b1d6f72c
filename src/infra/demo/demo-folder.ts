import { existsSync } from "node:fs";
import path from "node:path";

/** Marks a folder as the demo's own, so a later demo may wipe it and start over. */
export const DEMO_MARKER = ".tidemark-demo";

/**
 * Why a demo's scheduled jobs are disabled. The demo's runs talk to fakes it starts and stops
 * itself; its config file does not point at them, so an enabled job served from the demo's
 * folder would send the demo's data to the real service (see README, "The dashboard").
 */
export const DEMO_DISABLED_REASON =
  "demo job: disabled so the demo's data never reaches a real service";

/** True when dataDir was written by `tidemark demo`. */
export function isDemoFolder(dataDir: string): boolean {
  return existsSync(path.join(dataDir, DEMO_MARKER));
}

/** The reason a job is disabled, when it is a disabled job of the demo's folder. */
export function demoDisabledReason(dataDir: string, job: { enabled: boolean }): string | undefined {
  return !job.enabled && isDemoFolder(dataDir) ? DEMO_DISABLED_REASON : undefined;
}
