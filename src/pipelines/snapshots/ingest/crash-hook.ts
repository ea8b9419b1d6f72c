/**
 * TEST-ONLY hook for the kill-at-any-point recovery tests (seed §15): when the environment
 * variable TIDEMARK_SNAPSHOTS_CRASH_AT names a stage, the process SIGKILLs itself on reaching
 * it, exactly as an OOM kill or power loss would stop it (no finally blocks, no cleanup).
 * Never set it in production.
 */
export const CRASH_STAGES = [
  "after-select",
  "mid-parse",
  "before-state",
  "state-written",
  "after-switch",
  "after-accepted",
  "before-archive",
] as const;

/** A point of the ingestion where the hook can kill the process. */
export type CrashStage = (typeof CRASH_STAGES)[number];

/** Kills the process if TIDEMARK_SNAPSHOTS_CRASH_AT asks for this stage. */
export function crashPoint(stage: CrashStage): void {
  if (process.env.TIDEMARK_SNAPSHOTS_CRASH_AT === stage) process.kill(process.pid, "SIGKILL");
}
