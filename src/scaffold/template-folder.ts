import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Where the pipeline template sits below the package root (shipped in the package). */
const TEMPLATE_RELATIVE_PATH = path.join("templates", "pipeline");

/**
 * The template folder: found by walking up from this module, so it works from `src/scaffold/`
 * (tsx) and from the bundled `dist/` alike.
 */
export function findTemplateFolder(from: string = fileURLToPath(import.meta.url)): string {
  let dir = path.dirname(from);
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, TEMPLATE_RELATIVE_PATH);
    if (existsSync(path.join(candidate, "index.ts"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`pipeline template ${TEMPLATE_RELATIVE_PATH} not found above ${from}`);
}

/** Every file below `root`, as `/`-separated paths relative to it, sorted. */
export function listTemplateFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "data") walk(child);
      } else if (entry.isFile()) out.push(child);
    }
  };
  walk("");
  return out.sort();
}
