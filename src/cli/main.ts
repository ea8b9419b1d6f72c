import { CommanderError } from "commander";
import { ExitCode, TidemarkError } from "../engine/errors.ts";
import { Registry } from "../engine/registry/registry.ts";
import { pipelines } from "../pipelines/index.ts";
import { type CliIo, processIo } from "./io.ts";
import { buildProgram } from "./program.ts";

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
  registry: Registry = new Registry(pipelines),
): Promise<number> {
  const { program, session } = buildProgram(io, registry);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.ok;
    }
    await program.parseAsync(argv, { from: "user" });
    return session.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its message.
      return QUIET_COMMANDER_CODES.has(err.code) ? ExitCode.ok : ExitCode.usage;
    }
    if (err instanceof TidemarkError) {
      io.err(`tidemark: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(
      `tidemark: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return ExitCode.jobFailed;
  } finally {
    await session.close();
  }
}
