import type { Command } from "commander";
import type { CliSession } from "../session.ts";

/**
 * `tidemark db gc`: housekeeping of what killed processes leave behind. Today that is the fs
 * blob store's temp files: a put killed midway (`kill -9`, a power cut) leaves one, which
 * listings skip but nothing else removes. A temp file goes once it has not been written to for
 * longer than the lease TTL and the process that wrote it is gone; a write in progress is kept.
 */
export function registerDbGcCommand(db: Command, session: CliSession): void {
  db.command("gc")
    .description(
      "remove what interrupted runs left behind: blob temp files older than the lease TTL whose writer is gone",
    )
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const config = await session.config();
      const target = config.blobs;
      const ttlSeconds = Math.round(config.runs.leaseTtlMs / 1000);
      if (target.driver !== "fs") {
        const where = `s3://${target.s3.bucket}/${target.s3.prefix}`;
        if (opts.json) return session.printJson({ blobs: where, removed: [], kept: 0 });
        session.print(`Blob store: ${where}`);
        return session.print("Nothing to remove: an S3 put that is cut off leaves no object.");
      }
      const { sweepTempFiles } = await import("../../infra/blobs/fs-temp-sweep.ts");
      const result = await sweepTempFiles(target.root, { olderThanMs: config.runs.leaseTtlMs });
      if (opts.json) return session.printJson({ blobs: target.root, ...result });
      session.print(`Blob store: ${target.root}`);
      session.print(
        `Removed ${result.removed.length} temp file(s) left by interrupted writes ` +
          `(not written to for over ${ttlSeconds} s, writer gone); kept ${result.kept}.`,
      );
      for (const key of result.removed) session.print(`  ${key}`);
    });
}
