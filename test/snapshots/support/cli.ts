import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Registry } from "../../../src/engine/registry/registry.ts";
import type { DatabaseTarget } from "../../../src/infra/config/load-config.ts";
import { snapshotsPipeline } from "../../../src/pipelines/snapshots/index.ts";
import { databaseUrl } from "../../../src/testing/cli-env.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { type CliResult, runCli, spawnCli } from "../../../src/testing/run-cli.ts";
import { testTempDir } from "../../../src/testing/temp-dir.ts";
import { CONFIG } from "./harness.ts";

/** The test CLI that kills or pauses itself at the stage these variables name. */
const FAULT_CLI = fileURLToPath(new URL("../../fixtures/snapshots-crash-cli.ts", import.meta.url));
const FAULT_VARIABLES = ["TIDEMARK_SNAPSHOTS_CRASH_AT", "TIDEMARK_SNAPSHOTS_PAUSE_AT"];

/** A working directory with tidemark.yaml, a fresh database and a data dir, for CLI tests. */
export interface CliFixture {
  cwd: string;
  dataDir: string;
  root: string;
  env: NodeJS.ProcessEnv;
  /** The fixture's database (to read tables the CLI does not print). */
  target: DatabaseTarget;
  /** In-process CLI (fast). */
  run(argv: string[]): Promise<CliResult>;
  /**
   * The real CLI in a child process (for kills and true parallelism); with
   * TIDEMARK_SNAPSHOTS_CRASH_AT or _PAUSE_AT, a test CLI that installs the crash hook first.
   */
  spawn(argv: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
  config(supplier: string, yaml?: string): void;
  put(supplier: string, name: string, body: string | Buffer, ageSec?: number): void;
}

/** Creates the fixture; `settings` goes under pipelines.snapshots in tidemark.yaml. */
export async function cliFixture(
  h: DialectHarness,
  settings = "    workers: 0\n    fsync: false\n",
): Promise<CliFixture> {
  const cwd = testTempDir("tm-snapcli-");
  const dataDir = path.join(cwd, "data");
  const target = await h.freshTarget();
  const url = databaseUrl(target);
  writeFileSync(path.join(cwd, "tidemark.yaml"), `pipelines:\n  snapshots:\n${settings}`);
  const env = {
    TIDEMARK_DATABASE_URL: url,
    TIDEMARK_DATA_DIR: dataDir,
    TIDEMARK_LEASE_TTL_SECONDS: "1",
  };
  const root = path.join(dataDir, "etl_data", "raw_v1");
  const registry = new Registry([snapshotsPipeline]);
  return {
    cwd,
    dataDir,
    root,
    env,
    target,
    run: (argv) => runCli(argv, { cwd, env, registry }),
    spawn: (argv, extra = {}) =>
      spawnCli(argv, {
        cwd,
        env: { ...env, ...extra },
        timeoutMs: 120_000,
        // A kill or pause asked for: the CLI that installs the snapshots crash hook.
        ...(FAULT_VARIABLES.some((v) => extra[v]) ? { source: FAULT_CLI } : {}),
      }),
    config(supplier, yaml = CONFIG) {
      const dir = path.join(dataDir, "etl_ops", "config");
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${supplier}.yaml`), yaml);
    },
    put(supplier, name, body, ageSec = 60) {
      const dir = path.join(root, "inbox", supplier);
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, name);
      writeFileSync(file, body);
      const t = new Date(Date.now() - ageSec * 1000);
      utimesSync(file, t, t);
    },
  };
}
