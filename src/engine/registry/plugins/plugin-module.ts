import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Where a `plugins:` entry was found: its module file, and its package.json when a package. */
export interface PluginLocation {
  readonly file: string;
  readonly packageJson?: PluginPackageJson;
}

/** The fields of a plugin package's package.json that loading reads. */
export interface PluginPackageJson {
  readonly name?: string;
  readonly version?: string;
  readonly main?: string;
  readonly exports?: unknown;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly engines?: Readonly<Record<string, string>>;
}

/** A path (`./pipelines/github.ts`, `/abs/x.js`) rather than a package name. */
export function isPathEntry(entry: string): boolean {
  return /^\.{0,2}\//.test(entry) || /\.(ts|mts|js|mjs)$/.test(entry) || path.isAbsolute(entry);
}

/** The module file `exports` gives for `.` (string, or the import/default condition). */
function exportedEntry(exports: unknown): string | undefined {
  const root =
    exports && typeof exports === "object" && "." in exports
      ? (exports as Record<string, unknown>)["."]
      : exports;
  if (typeof root === "string") return root;
  if (root && typeof root === "object") {
    const conditions = root as Record<string, unknown>;
    for (const key of ["import", "node", "default"]) {
      const target = conditions[key];
      if (typeof target === "string") return target;
      const nested = exportedEntry(target);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** The package's folder, looked up in node_modules from `baseDir` upwards as Node does. */
function packageDir(name: string, baseDir: string): string | undefined {
  for (let dir = baseDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Finds the module of a `plugins:` entry, or throws an Error saying why it cannot. */
export function locatePlugin(entry: string, baseDir: string): PluginLocation {
  if (isPathEntry(entry)) {
    const file = path.resolve(baseDir, entry);
    if (!existsSync(file) || statSync(file).isDirectory()) throw new Error("file not found");
    return { file };
  }
  const dir = packageDir(entry, baseDir);
  if (!dir) throw new Error(`package not installed (no node_modules/${entry} from ${baseDir})`);
  const packageJson = JSON.parse(
    readFileSync(path.join(dir, "package.json"), "utf8"),
  ) as PluginPackageJson;
  const target = exportedEntry(packageJson.exports) ?? packageJson.main ?? "index.js";
  const file = path.resolve(dir, target);
  if (!existsSync(file)) throw new Error(`its entry ${target} does not exist`);
  return { file, packageJson };
}

let tsxRegistered = false;

/**
 * Imports a plugin's module. From the sources (tsx or Vitest) TypeScript loads as it is; from
 * the build, tsx's loader is registered for the process first (once). Not tsx's scoped
 * `tsImport`: modules loaded through it are separate instances, so a plugin's `UsageError`
 * would not be the class the CLI checks its exit code by.
 */
export async function importPlugin(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  const typescript = /\.(ts|mts)$/.test(file);
  if (typescript && !import.meta.url.endsWith(".ts") && !tsxRegistered) {
    const { register } = await import("tsx/esm/api");
    register();
    tsxRegistered = true;
  }
  return import(url);
}
