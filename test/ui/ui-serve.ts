import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Registry } from "../../src/engine/registry/registry.ts";
import { booksPipeline } from "../../src/pipelines/books/index.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import { snapshotsPipeline } from "../../src/pipelines/snapshots/index.ts";
import { runCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";

const UI_CLI = fileURLToPath(new URL("./fixtures/ui-cli.ts", import.meta.url));
const BIN = fileURLToPath(new URL("../../bin/tidemark.js", import.meta.url));

/** The API token the dashboard suites sign in with. */
export const UI_TOKEN = "ui-test-token-5f1c0e9a7b3d4c21";

/** A `tidemark serve` child over the books and snapshots demo data. */
export interface DemoServe {
  readonly url: string;
  /** The demo's folder (holds the SQLite database and tidemark.yaml). */
  readonly dir: string;
  /** Everything the child printed (stdout + stderr, the log included). */
  output(): string;
  /** Runs a CLI command in-process against the demo's configuration. */
  cli(...args: string[]): ReturnType<typeof runCli>;
  /** SIGTERM, then removes the folder. */
  stop(): Promise<void>;
}

/** Books and snapshots only: the pipelines whose panels these suites check. */
export const uiRegistry = () => new Registry([booksPipeline, snapshotsPipeline]);

/**
 * `tidemark demo` (books + snapshots, or every pipeline of the build with `allPipelines`) in a
 * fresh folder, one dead-lettered run request (a job removed after its run was queued), then
 * `tidemark serve` on that data. For a whole suite: call in beforeAll and stop in afterAll.
 */
export async function startDemoServe(options: { allPipelines?: boolean } = {}): Promise<DemoServe> {
  const dir = mkdtempSync(path.join(tmpdir(), "tm-ui-"));
  const config = path.join(dir, "demo", "tidemark.yaml");
  // undefined = the build's registry (every pipeline in src/pipelines/index.ts).
  const registry = options.allPipelines ? undefined : uiRegistry();
  // The demos of the pipelines with a panel only (the others' data would not be looked at).
  const demoRegistry = options.allPipelines
    ? new Registry(pipelines.filter((p) => p.panel && p.demo))
    : registry;
  const cli = (...args: string[]) => runCli(["-c", config, ...args], { cwd: dir, registry });
  const must = async (...args: string[]) => {
    const res = await runCli(args, { cwd: dir, registry });
    if (res.code !== 0) throw new Error(`${args.join(" ")} exited ${res.code}: ${res.stderr}`);
  };
  try {
    const demo = await runCli(["demo", "--data-dir", "demo"], { cwd: dir, registry: demoRegistry });
    if (demo.code !== 0) throw new Error(`demo exited ${demo.code}: ${demo.stderr}`);
    await must(
      "-c",
      config,
      "job",
      "add",
      "doomed",
      "--type",
      "snapshots.ingest",
      "--params",
      '{"supplier":"doomed"}',
    );
    await must("-c", config, "run", "doomed", "--queue");
    await must("-c", config, "job", "rm", "doomed", "--yes");
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TIDEMARK_API_TOKENS: UI_TOKEN,
    TIDEMARK_LOG_LEVEL: "info",
  };
  delete env.TIDEMARK_DATABASE_URL;
  delete env.TIDEMARK_DATA_DIR;
  if (options.allPipelines) env.TIDEMARK_FROM_SOURCE = "1";
  const child = spawn(
    process.execPath,
    [
      ...(options.allPipelines ? [BIN] : ["--import", TSX_IMPORT, UI_CLI]),
      ...["-c", config, "serve", "--port", "0"],
    ],
    { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /Listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    child.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`serve exited:\n${out}`));
    });
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, dir, output: () => out, cli, stop };
}
