import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";
import { openRuntime } from "../../../src/engine/runtime/open-runtime.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import { type DatabaseTarget, loadConfig } from "../../../src/infra/config/load-config.ts";
import { silentLogger } from "../../../src/infra/logging/logger.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { booksRegistry } from "./books-harness.ts";

/** A temp working directory and the env that points the CLI at a fresh database of `h`. */
export async function cliEnv(
  h: DialectHarness,
): Promise<{ cwd: string; env: NodeJS.ProcessEnv; target: DatabaseTarget }> {
  const cwd = mkdtempSync(path.join(tmpdir(), "tm-books-cli-"));
  onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
  const target = await h.freshTarget();
  const url = target.dialect === "postgres" ? target.url : target.path;
  return {
    cwd,
    env: { TIDEMARK_DATA_DIR: path.join(cwd, "data"), TIDEMARK_DATABASE_URL: url },
    target,
  };
}

/** A migrated runtime on the same database the CLI uses (to seed and inspect rows). */
export async function runtimeOn(target: DatabaseTarget, dataDir: string): Promise<Runtime> {
  const url = target.dialect === "postgres" ? target.url : target.path;
  const config = loadConfig({
    cwd: dataDir,
    env: { TIDEMARK_DATA_DIR: dataDir, TIDEMARK_DATABASE_URL: url },
  });
  const runtime = await openRuntime({ config, registry: booksRegistry(), logger: silentLogger() });
  onTestFinished(() => runtime.close());
  return runtime;
}
