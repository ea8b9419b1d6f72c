import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Command } from "commander";
import type { CliSession } from "../session.ts";

/** `tidemark demo`: every pipeline's demo against its fake, in a fresh data dir. */
export function registerDemoCommand(program: Command, session: CliSession): void {
  program
    .command("demo")
    .description("run every pipeline's demo against its local fake in a fresh data directory")
    .option("--data-dir <dir>", "where to put the demo data (default: a new temp folder)")
    .option("--only <pipeline>", "run only this pipeline's demo")
    .action(async (opts: { dataDir?: string; only?: string }) => {
      const withDemo = session.registry.pipelines.filter(
        (p) => p.demo && (!opts.only || p.name === opts.only),
      );
      if (withDemo.length === 0) {
        session.print(
          opts.only
            ? `No demo for pipeline ${opts.only}.`
            : "No pipeline with a demo is registered yet: nothing to show. The engine is ready (try tidemark --help).",
        );
        return;
      }
      const dataDir = opts.dataDir
        ? path.resolve(session.io.cwd, opts.dataDir)
        : mkdtempSync(path.join(tmpdir(), "tidemark-demo-"));
      const [{ loadConfig }, { createLogger }, { openRuntime }] = await Promise.all([
        import("../../infra/config/load-config.ts"),
        import("../../infra/logging/logger.ts"),
        import("../../engine/runtime/open-runtime.ts"),
      ]);
      // The demo never touches the user's database: it gets its own config on defaults.
      const config = loadConfig({ cwd: dataDir, env: { TIDEMARK_DATA_DIR: dataDir } });
      const logger = createLogger({ level: "warn", destination: session.io.logDestination });
      const runtime = await openRuntime({
        config,
        registry: session.registry,
        logger,
        environ: session.io.env,
      });
      session.print(`Demo data directory: ${dataDir}`);
      try {
        for (const p of withDemo) {
          session.print(`\n== ${p.name}: ${p.description}`);
          await p.demo?.({ runtime, dataDir, print: (line) => session.print(line) });
        }
      } finally {
        await runtime.close();
      }
    });
}
