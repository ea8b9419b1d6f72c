import { locateConfig } from "../../../infra/config/locate-config.ts";
import { ConfigError } from "../../errors.ts";
import { Registry } from "../registry.ts";

/** `-c X`, `-cX`, `--config X` or `--config=X` among the CLI's arguments (before any `--`). */
export function configArgument(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a === "-c" || a === "--config") found = argv[++i];
    else if (a.startsWith("--config=")) found = a.slice("--config=".length);
    else if (/^-c./.test(a)) found = a.slice(2);
  }
  return found;
}

/**
 * The registry with the pipelines the configuration's `plugins:` names added after `base`'s
 * (built-in) ones. Runs before any command, so a bad plugin stops the CLI (exit 2) before
 * anything is written; with no configuration file or no `plugins:`, `base` itself.
 */
export async function registryWithPlugins(
  base: Registry,
  options: { configPath: string | undefined; cwd: string },
): Promise<Registry> {
  let file: string | undefined;
  try {
    file = locateConfig(options);
  } catch {
    // A missing file is reported where the configuration is loaded, by the commands that need
    // it (`init` creates it).
    return base;
  }
  if (!file) return base;
  // Loaded only when there is a file: `tidemark --help` elsewhere reads no YAML.
  const { readYamlFile } = await import("../../../infra/config/load-config.ts");
  let raw: unknown;
  try {
    raw = readYamlFile(file);
  } catch {
    // Reported, with line and column, where the configuration is loaded.
    return base;
  }
  const entries =
    raw && typeof raw === "object" ? (raw as Record<string, unknown>).plugins : undefined;
  if (entries === undefined || entries === null) return base;
  if (!Array.isArray(entries) || entries.some((e) => typeof e !== "string" || e === "")) {
    throw new ConfigError(`${file}: plugins: expected a list of module paths or package names`);
  }
  if (entries.length === 0) return base;
  const { loadPlugins } = await import("./load-plugins.ts");
  const plugins = await loadPlugins({ file, entries }, base.pipelines);
  return new Registry(
    [...base.pipelines, ...plugins.map((p) => p.definition)],
    new Map(plugins.map((p) => [p.definition.name, p.file])),
  );
}
