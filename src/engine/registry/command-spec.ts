import type { PipelineServices } from "./pipeline-services.ts";

/**
 * Services a pipeline's CLI commands can use; the database opens (and migrates) on the first
 * call of `services()`, so a command that fails on its arguments writes nothing.
 */
export interface CliServices {
  /** The command's pipeline's services (its settings included), opened on first use. */
  services<S = unknown>(): Promise<PipelineServices<S>>;
  /** Writes a line to standard output. */
  print(line: string): void;
  /** Writes a value as pretty JSON (two-space indent) to standard output: a command's `--json`. */
  printJson(value: unknown): void;
  /** Writes rows as aligned columns under `headers` (null shows as `-`): a command's table. */
  printTable(
    headers: readonly string[],
    rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
  ): void;
  /**
   * Streams text to standard output, waiting while the reader is slow; resolves false once the
   * reader has gone (e.g. `| head`), when the command should stop producing.
   */
  write(text: string): Promise<boolean>;
  /** Sets the process exit code without throwing (e.g. 1 when a run it started failed). */
  setExitCode(code: number): void;
  /** The working directory and environment of the invocation. */
  readonly cwd: string;
  readonly environ: NodeJS.ProcessEnv;
}

/** A positional argument: `<name>`, `[name]` (optional) or `[name...]` (variadic). */
export interface CommandArgSpec {
  readonly name: string;
  readonly description?: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
}

/** An option, in commander's flag syntax: `--all`, `--supplier <name>`, `--dq-max-rows <n>`. */
export interface CommandOptionSpec {
  readonly flags: string;
  readonly description: string;
  readonly default?: string | boolean;
}

/** What an action receives: positional arguments by name and options by camelCase name. */
export interface CommandInput {
  readonly args: Readonly<Record<string, string | string[] | undefined>>;
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * One command a pipeline adds, as a plain descriptor (the CLI turns it into commander code).
 * `path` are the words after `tidemark`: `["snapshots", "run"]`, or `["job", "cursor", "reset"]`
 * to add below an existing group. Actions load their implementation with `await import()`.
 */
export interface CommandSpec {
  readonly path: readonly string[];
  readonly description: string;
  readonly args?: readonly CommandArgSpec[];
  readonly options?: readonly CommandOptionSpec[];
  action(input: CommandInput, services: CliServices): Promise<void>;
}

/** Describes a group of commands (`tidemark snapshots`), shown in `--help`. */
export interface CommandGroupSpec {
  readonly path: readonly string[];
  readonly description: string;
}
