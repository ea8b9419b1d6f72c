/**
 * The points of the ingestion where a test can stop the process: the kill-at-any-point recovery
 * tests install a hook (`setCrashHook`) that SIGKILLs the process on reaching a stage, exactly as
 * an OOM kill or power loss would stop it (no finally blocks, no cleanup), or SIGSTOPs it there
 * (a GC pause, a frozen VM) until someone sends SIGCONT. A shipped process installs none, and
 * nothing here reads the environment. The ingest stage owns it; the parse and publish stages
 * (the object storage included) name their stages here too.
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

/** What the installed hook does at a stage: nothing (undefined), kill or pause the process. */
export type CrashAction = "kill" | "pause" | undefined;

let hook: (stage: CrashStage) => CrashAction = () => undefined;

/** Installs the hook (a test's CLI process does, before it runs the command); undefined removes it. */
export function setCrashHook(next: ((stage: CrashStage) => CrashAction) | undefined): void {
  hook = next ?? (() => undefined);
}

/** Kills or pauses the process if the installed hook asks for this stage. */
export function crashPoint(stage: CrashStage): void {
  const action = hook(stage);
  if (action === "kill") process.kill(process.pid, "SIGKILL");
  if (action === "pause") process.kill(process.pid, "SIGSTOP");
}

/**
 * The body unchanged, or — when the hook asks for the stage — one that stops the process once
 * the consumer has taken its first chunk: a write caught midway.
 */
export function crashMidStream(
  stage: CrashStage,
  body: AsyncIterable<Uint8Array>,
): AsyncIterable<Uint8Array> {
  if (hook(stage) === undefined) return body;
  return (async function* () {
    for await (const chunk of body) {
      yield chunk;
      crashPoint(stage);
    }
    crashPoint(stage);
  })();
}
