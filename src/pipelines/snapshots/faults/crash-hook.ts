/**
 * TEST-ONLY hook for the kill-at-any-point recovery tests: when the environment variable
 * TIDEMARK_SNAPSHOTS_CRASH_AT names a stage, the process SIGKILLs itself on reaching it, exactly
 * as an OOM kill or power loss would stop it (no finally blocks, no cleanup); when
 * TIDEMARK_SNAPSHOTS_PAUSE_AT names it, the process SIGSTOPs itself there (a GC pause, a frozen
 * VM) until someone sends SIGCONT. Never set them in production. It lives below ingest/ and
 * storage/ so both can name their stages.
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

/**
 * Stages inside the object storage (`storage: s3`), reached only in that mode: `mid-upload`
 * while the state's facts are being uploaded, `mid-move` while a move copies its file (the run's
 * first move: with one new file in the inbox, its archive move), `after-move-copy` once the copy
 * exists and before the source is deleted.
 */
export const OBJECT_CRASH_STAGES = ["mid-upload", "mid-move", "after-move-copy"] as const;

/** A point of the ingestion where the hook can kill the process. */
export type CrashStage = (typeof CRASH_STAGES)[number] | (typeof OBJECT_CRASH_STAGES)[number];

/** Kills or pauses the process if TIDEMARK_SNAPSHOTS_CRASH_AT / _PAUSE_AT asks for this stage. */
export function crashPoint(stage: CrashStage): void {
  if (process.env.TIDEMARK_SNAPSHOTS_CRASH_AT === stage) process.kill(process.pid, "SIGKILL");
  if (process.env.TIDEMARK_SNAPSHOTS_PAUSE_AT === stage) process.kill(process.pid, "SIGSTOP");
}

/**
 * The body unchanged, or — when the stage is asked for — one that stops the process once the
 * consumer has taken its first chunk: a write caught midway.
 */
export function crashMidStream(
  stage: CrashStage,
  body: AsyncIterable<Uint8Array>,
): AsyncIterable<Uint8Array> {
  const env = process.env;
  if (env.TIDEMARK_SNAPSHOTS_CRASH_AT !== stage && env.TIDEMARK_SNAPSHOTS_PAUSE_AT !== stage) {
    return body;
  }
  return (async function* () {
    for await (const chunk of body) {
      yield chunk;
      crashPoint(stage);
    }
    crashPoint(stage);
  })();
}
