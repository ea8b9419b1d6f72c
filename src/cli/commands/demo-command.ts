import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../engine/errors.ts";
import type { DemoContext, DemoRunRequest } from "../../engine/registry/pipeline-definition.ts";
import { pipelineServices, runDemoJob } from "../../engine/runs/pipeline-services.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import { DEMO_DISABLED_REASON, DEMO_MARKER } from "../../infra/demo/demo-folder.ts";
import { fitLines } from "../output/demo-lines.ts";
import { inUserForm } from "../output/invocation.ts";
import { pipelineList } from "../output/pipeline-list.ts";
import type { CliSession } from "../session.ts";
import { writeFailure } from "../write-user-file.ts";

const MARKER = DEMO_MARKER;
/** The demo's config: its data dir is the folder itself, whatever the user's shell says. */
const DEMO_CONFIG =
  "# Written by `tidemark demo`: the demo's own data, separate from yours.\ndata_dir: .\n";

/** Empties a previous demo folder or refuses a folder that holds something else. */
function prepareDemoDir(dir: string, plugins: readonly string[]): void {
  try {
    fillDemoDir(dir, plugins);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--data-dir ${dir}: ${writeFailure(err, dir)}`, { cause: err });
  }
}

function fillDemoDir(dir: string, plugins: readonly string[]): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new UsageError(`--data-dir ${dir}: it is a file, not a folder`);
  }
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes(MARKER)) {
      throw new UsageError(
        `--data-dir ${dir}: the folder is not empty and holds no earlier demo; choose another folder`,
      );
    }
    for (const entry of entries) rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, MARKER), "");
  // Pipelines loaded from `plugins:` again, so the hints printed (`-c <folder> …`) see them.
  const listed = plugins.map((file) => `  - ${JSON.stringify(file)}\n`).join("");
  writeFileSync(path.join(dir, "tidemark.yaml"), DEMO_CONFIG + (listed && `plugins:\n${listed}`));
}

/**
 * The demo's jobs ran against fakes that are gone once it ends; its config does not point at
 * them, so a scheduled job left enabled would reach the real service when the folder is served.
 */
async function disableDemoJobs(runtime: Runtime): Promise<string[]> {
  const [{ JobService }, { JobRepo }] = await Promise.all([
    import("../../engine/jobs/job-service.ts"),
    import("../../engine/jobs/job-repo.ts"),
  ]);
  const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
  const disabled: string[] = [];
  for (const job of await new JobRepo(runtime.db).list()) {
    if (!job.enabled) continue;
    await jobs.update(job.name, { enabled: false });
    disabled.push(job.name);
  }
  return disabled;
}

/** The demo's runtime: its own database; TIDEMARK_* of the shell are ignored. */
async function openDemoRuntime(session: CliSession, dataDir: string): Promise<Runtime> {
  const [{ loadConfig }, { createLogger }, { openRuntime }] = await Promise.all([
    import("../../infra/config/load-config.ts"),
    import("../../infra/logging/logger.ts"),
    import("../../engine/runtime/open-runtime.ts"),
  ]);
  const config = loadConfig({
    configPath: path.join(dataDir, "tidemark.yaml"),
    cwd: dataDir,
    env: {},
    pipelineSettings: session.registry.settingsSpecs(),
  });
  const logger = createLogger({ level: "warn", destination: session.io.logDestination });
  return openRuntime({ config, registry: session.registry, logger, environ: session.io.env });
}

/**
 * The command line a demo prints for `args`: `-c <folder>` (the shortest form to copy), as
 * `tidemark …`; printing gives it the form that works where the user is (npx or not).
 */
function demoCommand(session: CliSession, dataDir: string): (args: string) => string {
  let rel = path.relative(session.io.cwd, dataDir);
  if (rel.startsWith("..") || path.isAbsolute(rel)) rel = dataDir;
  const quoted = /^[\w./-]+$/.test(rel) ? rel : JSON.stringify(rel);
  return (args) => `tidemark -c ${quoted} ${args}`;
}

/** `tidemark demo`: every pipeline's demo against its fake, in its own data dir. */
export function registerDemoCommand(program: Command, session: CliSession): void {
  program
    .command("demo")
    .description("run every pipeline's demo against its local fake, in ./tidemark-demo/")
    .addHelpText("after", () => pipelineList(session, (p) => (p.demo ? p.description : undefined)))
    .option("--data-dir <dir>", "where to keep the demo's data (default: ./tidemark-demo)")
    .option("--only <pipeline>", "run only this pipeline's demo")
    .action(async (opts: { dataDir?: string; only?: string }) => {
      const withDemo = opts.only
        ? [
            session.registry.pipeline(
              opts.only,
              (p) => p.demo !== undefined,
              "pipeline with a demo",
            ),
          ]
        : session.registry.pipelines.filter((p) => p.demo);
      if (withDemo.length === 0) {
        session.print(
          "No pipeline with a demo is registered yet: nothing to show. The engine is ready (try tidemark --help).",
        );
        return;
      }
      const dataDir = path.resolve(session.io.cwd, opts.dataDir ?? "tidemark-demo");
      prepareDemoDir(dataDir, [...session.registry.pluginFiles.values()]);
      const runtime = await openDemoRuntime(session, dataDir);
      const command = demoCommand(session, dataDir);
      // Within 80 columns, a command on a line of its own (in the form printed to the user).
      const print = (text: string) => {
        for (const l of fitLines(inUserForm(text, session.cliName), 80)) session.print(l);
      };
      print(`Demo data directory: ${dataDir}`);
      print(`Look around: ${command("runs ls")}`);
      try {
        for (const p of withDemo) {
          print(`\n== ${p.name}: ${p.description}`);
          const services = pipelineServices(runtime, p.name);
          const runJob = (request: DemoRunRequest) => runDemoJob(runtime, p.name, request);
          const ctx: DemoContext = { services, runJob, dataDir, print, command };
          await p.demo?.(ctx);
        }
        const disabled = await disableDemoJobs(runtime);
        if (disabled.length > 0) {
          print(`\nDisabled: ${disabled.join(", ")}`);
          print(`  (${DEMO_DISABLED_REASON})`);
        }
      } finally {
        await runtime.close();
      }
      // Said last, where the eye lands: the same runs and pipeline state, in a browser.
      print("\n== the dashboard: jobs, runs and every pipeline's state");
      print(`Start:  ${command("serve --insecure-no-auth --no-workers")}`);
      print("Open:   http://127.0.0.1:8787/ui  (local use only: no sign-in)");
    });
}
