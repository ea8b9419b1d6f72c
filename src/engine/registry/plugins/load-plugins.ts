import path from "node:path";
import { ConfigError } from "../../errors.ts";
import type { PipelineDefinition } from "../pipeline-definition.ts";
import { clashWith, isPipelineDefinition } from "./plugin-clash.ts";
import { importPlugin, locatePlugin } from "./plugin-module.ts";
import { rangeProblem } from "./plugin-range.ts";

/** Where the `plugins:` list comes from: for errors, and the folder its paths are relative to. */
export interface PluginSource {
  /** The configuration file (named in errors). */
  readonly file: string;
  readonly entries: readonly string[];
}

/** A pipeline loaded from `plugins:` and the module file it came from. */
export interface LoadedPlugin {
  readonly definition: PipelineDefinition;
  readonly file: string;
}

/** Loads one entry's definition; throws an Error whose message is the problem. */
async function loadOne(
  entry: string,
  baseDir: string,
  registered: readonly PipelineDefinition[],
): Promise<LoadedPlugin> {
  const location = locatePlugin(entry, baseDir);
  if (location.packageJson) {
    const problem = rangeProblem(location.packageJson);
    if (problem) throw new Error(problem);
  }
  let mod: Record<string, unknown>;
  try {
    mod = await importPlugin(location.file);
  } catch (err) {
    const message = (err as Error).message?.split("\n")[0] ?? String(err);
    throw new Error(`failed to load: ${message}`);
  }
  const definition = mod.default ?? mod.pipeline;
  if (!isPipelineDefinition(definition)) {
    throw new Error(
      "exports no pipeline definition (a default export or an export named `pipeline`, made with definePipeline)",
    );
  }
  const clash = clashWith(registered, definition);
  if (clash) throw new Error(clash);
  return { definition, file: location.file };
}

/**
 * The pipelines `plugins:` names, in order, each checked against those registered before it.
 * A plugin that cannot be found or loaded, exports no definition, needs another Tidemark or
 * claims a name already taken is a ConfigError (exit 2) naming the file, the entry and why.
 */
export async function loadPlugins(
  source: PluginSource,
  builtIns: readonly PipelineDefinition[],
): Promise<LoadedPlugin[]> {
  const baseDir = path.dirname(source.file);
  const loaded: LoadedPlugin[] = [];
  for (const entry of source.entries) {
    try {
      const registered = [...builtIns, ...loaded.map((l) => l.definition)];
      loaded.push(await loadOne(entry, baseDir, registered));
    } catch (err) {
      throw new ConfigError(`${source.file}: plugins: ${entry}: ${(err as Error).message}`);
    }
  }
  return loaded;
}
