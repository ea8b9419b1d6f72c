/** The test-only kill/pause hook (see faults/crash-hook.ts), where the ingestion steps find it. */
export {
  CRASH_STAGES,
  type CrashStage,
  crashPoint,
  OBJECT_CRASH_STAGES,
} from "../faults/crash-hook.ts";
