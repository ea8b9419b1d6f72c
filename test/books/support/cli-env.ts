import { writeFileSync } from "node:fs";
import path from "node:path";
import { onTestFinished } from "vitest";
import { openRuntime } from "../../../src/engine/runtime/open-runtime.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import { type DatabaseTarget, loadConfig } from "../../../src/infra/config/load-config.ts";
import { silentLogger } from "../../../src/infra/logging/logger.ts";
import { databaseUrl, cliEnv as sharedCliEnv } from "../../../src/testing/cli-env.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { runCli } from "../../../src/testing/run-cli.ts";
import { booksRegistry, startBooksFake, startCapture } from "./books-harness.ts";

/** A temp working directory and the env that points the CLI at a fresh database of `h`. */
export function cliEnv(h: DialectHarness) {
  return sharedCliEnv(h, "tm-books-cli-");
}

/** A migrated runtime on the same database the CLI uses (to seed and inspect rows). */
export async function runtimeOn(target: DatabaseTarget, dataDir: string): Promise<Runtime> {
  const config = loadConfig({
    cwd: dataDir,
    env: { TIDEMARK_DATA_DIR: dataDir, TIDEMARK_DATABASE_URL: databaseUrl(target) },
  });
  const runtime = await openRuntime({ config, registry: booksRegistry(), logger: silentLogger() });
  onTestFinished(() => runtime.close());
  return runtime;
}

/**
 * The CLI in a temp folder whose tidemark.yaml points books at a fresh fake (with these result
 * sizes per query) and at a capturing SMTP server.
 */
export async function booksCli(h: DialectHarness, sizes: Record<string, number>) {
  const { server } = await startBooksFake({ sizes });
  const smtp = await startCapture();
  const { cwd, env, target } = await cliEnv(h);
  writeFileSync(
    path.join(cwd, "tidemark.yaml"),
    [
      "pipelines:",
      "  books:",
      `    base_url: ${server.url}`,
      "    requests_per_second: 1000",
      `    smtp: { host: ${smtp.host}, port: ${smtp.port} }`,
      "",
    ].join("\n"),
  );
  const cli = (argv: string[]) => runCli(argv, { cwd, env, registry: booksRegistry() });
  return { server, smtp, cwd, env, target, cli };
}
