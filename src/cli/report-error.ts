import { ConfigError, ExitCode, TidemarkError } from "../engine/errors.ts";
import { redactText } from "../infra/logging/redact.ts";
import type { CliIo } from "./io.ts";
import { inUserForm } from "./output/invocation.ts";

/** Text on one line: line breaks (and the space around them) become one space. */
function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, " ").trim();
}

/** The stack below the message line, then each cause's, for --verbose. */
function stackText(err: Error): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const stack = e.stack ?? `${e.name}: ${e.message}`;
    parts.push(e === err ? stack : `caused by: ${stack}`);
  }
  return redactText(parts.join("\n"));
}

/**
 * Prints a thrown error as `tidemark: <what and where>` on one line, with the stack trace
 * only when verbose (never for a ConfigError: the line says all there is); returns the exit code.
 */
export function reportError(
  io: CliIo,
  err: unknown,
  verbose: boolean,
  cliName = "npx tidemark",
): number {
  if (err instanceof TidemarkError) {
    // Every error line goes through the one redaction path (URL passwords, keys in queries, …).
    io.err(`tidemark: ${inUserForm(redactText(oneLine(err.message)), cliName)}\n`);
    if (verbose && !(err instanceof ConfigError)) io.err(`${stackText(err)}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message || err.name : String(err);
  io.err(`tidemark: unexpected error: ${redactText(oneLine(message))}\n`);
  if (verbose && err instanceof Error) io.err(`${stackText(err)}\n`);
  else io.err("run with --verbose for the stack trace\n");
  return ExitCode.jobFailed;
}
