import { CommanderError } from "commander";
import { ExitCode } from "../engine/errors.ts";
import { configArgument, registryWithPlugins } from "../engine/registry/plugins/plugin-registry.ts";
import { Registry } from "../engine/registry/registry.ts";
import { databaseFailure } from "../infra/db/database-failure.ts";
import { applyHeapGrowth } from "../infra/process/heap-growth.ts";
import { pipelines } from "../pipelines/index.ts";
import { type CliIo, processIo } from "./io.ts";
import { buildProgram } from "./program.ts";
import { reportError } from "./report-error.ts";

const QUIET_COMMANDER_CODES = new Set([
  "commander.helpDisplayed",
  "commander.help",
  "commander.version",
  "commander.executeSubCommandAsync",
]);

/** Runs the CLI with argv (without `node tidemark`); returns the exit code. */
export async function main(
  argv: string[],
  io: CliIo = processIo(),
  builtIns: Registry = new Registry(pipelines),
): Promise<number> {
  let registry: Registry;
  try {
    // `plugins:` first: a pipeline that cannot load stops the CLI before anything is written.
    registry = await registryWithPlugins(builtIns, {
      configPath: configArgument(argv),
      cwd: io.cwd,
    });
  } catch (err) {
    return reportError(io, err, argv.includes("--verbose"));
  }
  const { program, session } = buildProgram(io, registry);
  // The session picks defaults by command (e.g. the log level of one-shot commands vs serve).
  program.hook("preAction", (_root, action) => {
    let top = action;
    while (top.parent && top.parent !== program) top = top.parent;
    session.command = top.name();
  });
  try {
    // Before any work: a long job's heap stays near what it keeps alive (see heap-growth.ts).
    applyHeapGrowth(io.env);
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.ok;
    }
    await program.parseAsync(argv, { from: "user" });
    return session.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its message. Help shown because a group was given no
      // subcommand (`tidemark job`) went to stderr with exitCode 1: a usage error, not --help.
      return QUIET_COMMANDER_CODES.has(err.code) && err.exitCode === 0
        ? ExitCode.ok
        : ExitCode.usage;
    }
    // A database that turned out read-only, corrupt or gone mid-command: one line naming it.
    const failure = databaseFailure(err, session.databaseDescription());
    return reportError(io, failure ?? err, session.verbose, session.cliName);
  } finally {
    await session.close();
  }
}
