import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";
import type { Clock } from "../engine/clock/clock.ts";
import type { Registry } from "../engine/registry/registry.ts";
import { openRuntime } from "../engine/runtime/open-runtime.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";
import { loadConfig } from "../infra/config/load-config.ts";
import { silentLogger } from "../infra/logging/logger.ts";
import { serverMigrations } from "../server/migrations/index.ts";
import type { DialectHarness } from "./dialects.ts";
import { testRegistry } from "./test-pipeline.ts";

/** A migrated runtime on a fresh database of the harness's dialect and a temp data dir. */
export async function openTestRuntime(
  h: DialectHarness,
  options: { clock?: Clock; registry?: Registry } = {},
): Promise<Runtime> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "tm-data-"));
  const target = await h.freshTarget();
  // Built like any user's configuration, so every setting has its real default.
  const config = loadConfig({
    cwd: dataDir,
    env: {
      TIDEMARK_DATA_DIR: dataDir,
      TIDEMARK_DATABASE_URL: target.dialect === "postgres" ? target.url : `sqlite:${target.path}`,
      TIDEMARK_LOG_LEVEL: "silent",
    },
  });
  const runtime = await openRuntime({
    config,
    registry: options.registry ?? testRegistry(),
    logger: silentLogger(),
    clock: options.clock,
    hostScopes: [serverMigrations],
  });
  onTestFinished(async () => {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return runtime;
}
