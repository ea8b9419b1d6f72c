import type { CliServices } from "tidemark";
import { interruptSignal } from "tidemark/kit";
import type { RakutenEntity } from "../stages/normalize/types.ts";

/**
 * `tidemark rakuten reapply <entity>`: a run of `rakuten.reapply` (job `rakuten-reapply-<entity>`),
 * under its lease and fence like any run, recorded in `tidemark runs`. Exit 1 when it failed.
 */
export async function reapplyCommand(
  services: CliServices,
  entity: RakutenEntity,
  opts: { dryRun?: boolean; limit?: number; json?: boolean },
): Promise<void> {
  const pipeline = await services.services();
  const interrupt = interruptSignal();
  try {
    const report = await pipeline.runJob({
      job: `rakuten-reapply-${entity}`,
      type: "rakuten.reapply",
      params: { entity },
      dryRun: opts.dryRun,
      limit: opts.limit,
      signal: interrupt.signal,
      progress: !opts.json,
      callerReportsOutcome: true,
    });
    if (opts.json) {
      services.printJson(report);
    } else {
      const s = report.summary;
      services.print(`Run ${report.runId}: ${report.status}`);
      const n = (k: string) => String(s[k] ?? 0);
      services.print(
        `  ${entity}: ${n("total_targets")} pending row(s), ${n(opts.dryRun ? "would_apply" : "reapplied")} ${opts.dryRun ? "would be re-applied" : "re-applied"}, ${n("failure_count")} failed (apply version ${String(s.apply_version)})`,
      );
      for (const f of (s.failures as Array<{ target: string; kind: string; message: string }>) ??
        []) {
        services.print(`  failed ${f.target} (${f.kind}): ${f.message}`);
      }
      if (report.error) services.print(`  error: ${report.error}`);
    }
    if (report.status !== "succeeded" && report.status !== "skipped") services.setExitCode(1);
  } finally {
    interrupt.dispose();
  }
}
