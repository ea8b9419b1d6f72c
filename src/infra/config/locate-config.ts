import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.ts";

/** The names a configuration file may have, in the order they are looked for. */
export const CONFIG_FILE_NAMES = ["tidemark.yaml", "tidemark.yml"] as const;

/**
 * The configuration file in effect: `configPath` (a file, or a folder holding tidemark.yaml),
 * else tidemark.yaml in `cwd`; undefined when there is none. Loads no YAML or schema module, so
 * it is cheap enough to run before every command.
 */
export function locateConfig(options: { configPath?: string; cwd?: string }): string | undefined {
  const cwd = options.cwd ?? process.cwd();
  if (options.configPath) {
    const file = path.resolve(cwd, options.configPath);
    if (!existsSync(file)) throw new ConfigError(`--config ${options.configPath}: file not found`);
    if (!statSync(file).isDirectory()) return file;
    // A folder (`-c tidemark-demo`): its tidemark.yaml or tidemark.yml.
    const inside = configIn(file);
    if (!inside) {
      throw new ConfigError(
        `--config ${options.configPath}: a folder without ${CONFIG_FILE_NAMES.join(" or ")}`,
      );
    }
    return inside;
  }
  return configIn(cwd);
}

function configIn(dir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}
