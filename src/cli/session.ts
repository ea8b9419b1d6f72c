import { existsSync } from "node:fs";
import { formatTable } from "../engine/output/format-table.ts";
import type { Registry } from "../engine/registry/registry.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";
import type { Config } from "../infra/config/load-config.ts";
import type { MigrationScope } from "../infra/db/migrator.ts";
import type { Logger } from "../infra/logging/logger.ts";
import { redactUrlPassword } from "../infra/logging/redact.ts";
import { serverMigrations } from "../server/migrations/index.ts";
import type { CliIo } from "./io.ts";
import { inUserForm, invocationName } from "./output/invocation.ts";

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
  logLevel?: string;
  verbose?: boolean;
}

/** Long-running processes: they log at the configured level (info by default). */
const SERVICE_COMMANDS = new Set(["serve", "worker"]);

/**
 * Log level of one-shot commands unless --log-level, TIDEMARK_LOG_LEVEL or `log.level` says
 * otherwise: their human summary on stdout is the report, so info lines would only repeat it.
 */
const ONE_SHOT_LEVEL = "warn";

/** True when the config file itself sets `log.level`. */
async function fileSetsLogLevel(file: string | undefined): Promise<boolean> {
  if (!file) return false;
  const { readYamlFile } = await import("../infra/config/load-config.ts");
  const raw = readYamlFile(file) as { log?: { level?: unknown } } | null;
  return raw?.log?.level !== undefined;
}

/**
 * One CLI invocation's services, created on first use so that `--help` and commands that do
 * not need the database never load it.
 */
export class CliSession {
  #config: Config | undefined;
  #logger: Logger | undefined;
  #runtime: Promise<Runtime> | undefined;
  /** Exit code a command sets when it finished without throwing (e.g. 1 for a failed run). */
  exitCode = 0;
  /** The top-level command being run (`run`, `serve`, …), once commander has chosen it. */
  command: string | undefined;
  /** How the user runs Tidemark here (`npx tidemark` or `tidemark`): printed hints use it. */
  readonly cliName: string;

  constructor(
    readonly io: CliIo,
    readonly registry: Registry,
    private readonly globals: () => GlobalOptions,
  ) {
    this.cliName = invocationName(io.env, io.cwd, io.binPath);
  }

  /** The loaded configuration (ConfigError on a bad file). */
  async config(): Promise<Config> {
    if (!this.#config) {
      const { loadConfig } = await import("../infra/config/load-config.ts");
      this.#config = loadConfig({
        configPath: this.globals().config,
        cwd: this.io.cwd,
        env: this.io.env,
        pipelineSettings: this.registry.settingsSpecs(),
      });
    }
    return this.#config;
  }

  /** The configured database as errors name it (file path, or URL without password), once known. */
  databaseDescription(): string | undefined {
    const db = this.#config?.database;
    if (!db) return undefined;
    return db.dialect === "sqlite" ? db.path : redactUrlPassword(db.url);
  }

  /**
   * True when the configured SQLite file does not exist yet: nothing is stored, so a command
   * looking up a job or run can refuse it without creating (and migrating) a database.
   */
  async nothingStoredYet(): Promise<boolean> {
    const db = (await this.config()).database;
    return db.dialect === "sqlite" && db.path !== ":memory:" && !existsSync(db.path);
  }

  /** The process logger (stderr). */
  async logger(): Promise<Logger> {
    if (!this.#logger) {
      const { createLogger } = await import("../infra/logging/logger.ts");
      this.#logger = createLogger({
        level: await this.logLevel(),
        destination: this.io.logDestination,
        pretty: this.io.logDestination ? false : undefined,
        prettyStacks: this.verbose,
      });
    }
    return this.#logger;
  }

  /** True with --verbose: stack traces on errors. */
  get verbose(): boolean {
    return this.globals().verbose === true;
  }

  /** --log-level, else the configured level when set or serving, else warn (see ONE_SHOT_LEVEL). */
  async logLevel(): Promise<string> {
    const flag = this.globals().logLevel;
    if (flag) return flag;
    const config = await this.config();
    if (this.command !== undefined && SERVICE_COMMANDS.has(this.command)) return config.log.level;
    if (this.io.env.TIDEMARK_LOG_LEVEL || (await fileSetsLogLevel(config.file))) {
      return config.log.level;
    }
    return ONE_SHOT_LEVEL;
  }

  /** Every migration scope a command migrates: the engine's, the server's, each pipeline's. */
  migrationScopes(): MigrationScope[] {
    return this.registry.migrationScopes([serverMigrations]);
  }

  /** Database (migrated), blob store and registry; opened once per invocation. */
  runtime(): Promise<Runtime> {
    this.#runtime ??= (async () => {
      const { openRuntime } = await import("../engine/runtime/open-runtime.ts");
      return openRuntime({
        config: await this.config(),
        registry: this.registry,
        logger: await this.logger(),
        environ: this.io.env,
        hostScopes: [serverMigrations],
      });
    })();
    return this.#runtime;
  }

  /** Writes one line to stdout, its `tidemark …` hints in the form that works here. */
  print(line = ""): void {
    this.io.out(`${inUserForm(line, this.cliName)}\n`);
  }

  /** Streams text to stdout (see CliIo.write); false once the reader has gone. */
  async write(text: string): Promise<boolean> {
    if (this.io.write) return this.io.write(text);
    this.io.out(text);
    return true;
  }

  /** Writes a value as pretty JSON to stdout. */
  printJson(value: unknown): void {
    this.io.out(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Writes rows as aligned columns under `headers` to stdout (see formatTable). */
  printTable(
    headers: readonly string[],
    rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
  ): void {
    this.print(formatTable(headers, rows));
  }

  /** Closes whatever was opened. */
  async close(): Promise<void> {
    if (this.#runtime) {
      const rt = await this.#runtime.catch(() => undefined);
      await rt?.close();
    }
    this.#logger?.flush();
  }
}
