import { Command, Option, type OutputConfiguration } from "commander";
import type { Registry } from "../engine/registry/registry.ts";
import { registerDbCommands } from "./commands/db-commands.ts";
import { registerDemoCommand } from "./commands/demo-command.ts";
import { registerFakeCommand } from "./commands/fake-command.ts";
import { registerHashCommand } from "./commands/hash-command.ts";
import { registerInitCommand } from "./commands/init-command.ts";
import { registerJobCommands } from "./commands/job-commands.ts";
import { registerNewCommands } from "./commands/new-pipeline-command.ts";
import { registerQueueCommands } from "./commands/queue-commands.ts";
import { registerRunCommands } from "./commands/run-commands.ts";
import { registerRunsCommands } from "./commands/runs-commands.ts";
import { registerServeCommands } from "./commands/serve-commands.ts";
import type { CliIo } from "./io.ts";
import { type CliBase, mountPipelineCommands } from "./mount-pipeline-commands.ts";
import { inUserForm, invocationName } from "./output/invocation.ts";
import { CliSession, type GlobalOptions } from "./session.ts";

// Kept within 80 columns: commander prints it as written.
const EXIT_CODES = `
Exit codes:
  0  ok
  1  a job (or one of the due jobs) failed
  2  usage or configuration error (bad option, bad config, unknown job or
     type, bad params)
  3  already running (another process holds the job's lease)

Environment (overrides tidemark.yaml): TIDEMARK_DATABASE_URL,
TIDEMARK_DATA_DIR (default ./data), TIDEMARK_ENV, TIDEMARK_LOG_LEVEL,
TIDEMARK_BLOBS_DRIVER, TIDEMARK_S3_*, TIDEMARK_QUEUE, TIDEMARK_PG_BOSS_*,
TIDEMARK_PORT, TIDEMARK_HOST, TIDEMARK_API_TOKENS, TIDEMARK_NOTIFY_WEBHOOK_*,
TIDEMARK_LEASE_TTL_SECONDS; pipelines read their own (see docs/pipelines/).`;

/** `tidemark job add`: the words that run a command, for pointing at its --help. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/**
 * Commander's output routed to the CLI's streams; its usage errors (bad option, unknown
 * command) become one line like every other error, pointing at the command's --help.
 */
function cliOutput(io: CliIo, cmd: Command): OutputConfiguration {
  return {
    writeOut: (t) => io.out(t),
    writeErr: (t) => io.err(t),
    outputError: (text, write) => {
      const message = text
        .replace(/^error: /, "")
        .replace(/\s*\r?\n\s*/g, " ")
        .trim();
      const see = inUserForm(
        `${commandPath(cmd)} --help`,
        invocationName(io.env, io.cwd, io.binPath),
      );
      write(`tidemark: ${message} (see ${see})\n`);
    },
  };
}

/** Builds the commander program with the engine's commands and every pipeline's. */
export function buildProgram(
  io: CliIo,
  registry: Registry,
): { program: Command; session: CliSession } {
  const program = new Command("tidemark");
  const session = new CliSession(io, registry, () => program.opts<GlobalOptions>());
  program
    .description("Incremental, idempotent, resumable data-collection jobs.")
    .version("0.1.0", "-V, --version")
    .option("-c, --config <file>", "configuration file (default: ./tidemark.yaml if present)")
    .addOption(
      new Option("--log-level <level>", "log level").choices([
        "trace",
        "debug",
        "info",
        "warn",
        "error",
        "fatal",
        "silent",
      ]),
    )
    .option("--verbose", "print stack traces with errors (errors are one line without it)")
    .addHelpText("after", EXIT_CODES)
    .configureOutput(cliOutput(io, program))
    .exitOverride();

  registerInitCommand(program, session);
  registerDbCommands(program, session);
  registerJobCommands(program, session);
  registerRunsCommands(program, session);
  registerRunCommands(program, session);
  registerQueueCommands(program, session);
  registerHashCommand(program, session);
  registerDemoCommand(program, session);
  registerFakeCommand(program, session);
  registerServeCommands(program, session);
  registerNewCommands(program, session);

  const services: CliBase = {
    runtime: () => session.runtime(),
    print: (line) => session.print(line),
    printJson: (value) => session.printJson(value),
    printTable: (headers, rows) => session.printTable(headers, rows),
    write: (text) => session.write(text),
    setExitCode: (code) => {
      session.exitCode = Math.max(session.exitCode, code);
    },
    cwd: io.cwd,
    environ: io.env,
  };
  mountPipelineCommands(program, registry.pipelines, services);

  // Every subcommand shares the root's output routing and exit override.
  const configure = (cmd: Command) => {
    cmd.configureOutput(cliOutput(io, cmd)).exitOverride();
    for (const sub of cmd.commands) configure(sub);
  };
  for (const sub of program.commands) configure(sub);
  return { program, session };
}
