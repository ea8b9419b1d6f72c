import type { IngestResult } from "../../ingest/types.ts";
import type { Selection } from "./select-input.ts";

/** What the inbox step saw: duplicates, obsolete, unstable and in-flight files, by name. */
export function inboxSummary(s: Selection | undefined): IngestResult["inbox"] {
  return {
    duplicates: s?.duplicates.map((d) => d.entry.name) ?? [],
    obsolete: s?.obsolete.map((o) => o.entry.name) ?? [],
    unstable: s?.unstable ?? [],
    in_flight: s?.inFlight ?? [],
  };
}

/** A result that processed no file (nothing to process, or a dry run's plan): no figures. */
export function fileLessResult(
  r: Pick<IngestResult, "supplier" | "run_id" | "status" | "detail" | "inbox" | "recovery">,
): IngestResult {
  return {
    ...r,
    reason_code: null,
    input_filename: null,
    input_sha256: null,
    total_rows: 0,
    good_rows: 0,
    bad_rows: 0,
    bad_ratio: 0,
    diff: null,
    state_path: null,
    manifest_path: null,
    input_moved_to: null,
  };
}
