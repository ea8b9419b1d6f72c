import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** A dependency spec that points at a local file or folder (a tarball, a checkout). */
const LOCAL_PREFIX = /^file:/;

/** `spec` as it reads from `toDir` when it was written in `fromDir` (local paths rebased). */
export function rebaseSpec(spec: string, fromDir: string, toDir: string): string {
  const local = LOCAL_PREFIX.test(spec) || /^\.{0,2}\//.test(spec) || /\.tgz$/.test(spec);
  if (!local) return spec;
  const target = path.resolve(fromDir, spec.replace(LOCAL_PREFIX, ""));
  const relative = path.relative(toDir, target).split(path.sep).join("/");
  return `file:${relative.startsWith(".") ? relative : `./${relative}`}`;
}

/** The `tidemark` spec of the nearest package.json at or above `dir`, with its folder. */
function enclosingSpec(dir: string): { spec: string; dir: string } | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const file = path.join(at, "package.json");
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
        for (const field of ["dependencies", "devDependencies"]) {
          const deps = pkg[field] as Record<string, unknown> | undefined;
          const spec = deps?.tidemark;
          if (typeof spec === "string" && spec !== "") return { spec, dir: at };
        }
      } catch {
        // unreadable: not a project that names Tidemark
      }
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * The `tidemark` dependency of a new pipeline in `target`: the one given (`--tidemark`, relative
 * to the working directory), else the one the enclosing project installed Tidemark with (a
 * tarball path rebased to the new folder), else this version's range.
 */
export function tidemarkDependency(
  given: string | undefined,
  cwd: string,
  target: string,
  version: string,
): { spec: string; from: "given" | "project" | "version" } {
  if (given) return { spec: rebaseSpec(given, cwd, target), from: "given" };
  const found = enclosingSpec(path.dirname(target));
  if (found) return { spec: rebaseSpec(found.spec, found.dir, target), from: "project" };
  return { spec: `^${version}`, from: "version" };
}
