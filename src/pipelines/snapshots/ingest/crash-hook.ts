/**
 * TEST-ONLY hook for the kill-at-any-point recovery tests: when the environment variable
 * TIDEMARK_SNAPSHOTS_CRASH_AT names a stage, the process SIGKILLs itself on reaching it, exactly
 * as an OOM kill or power loss would stop it (no finally blocks, no cleanup); when
 * TIDEMARK_SNAPSHOTS_PAUSE_AT names it, the process SIGSTOPs itself there (a GC pause, a frozen
 * VM) until someone sends SIGCONT. Never set them in production.
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

/** Kills or pauses the process if TIDEMARK_SNAPSHOTS_CRASH_AT / _PAUSE_AT asks for this stage. */
export function crashPoint(stage: CrashStage): void {
  if (process.env.TIDEMARK_SNAPSHOTS_CRASH_AT === stage) process.kill(process.pid, "SIGKILL");
  if (process.env.TIDEMARK_SNAPSHOTS_PAUSE_AT === stage) process.kill(process.pid, "SIGSTOP");
}
