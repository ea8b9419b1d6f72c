import path from "node:path";

/**
 * How the user runs Tidemark where they are: `tidemark` from a global install (`npm i -g`),
 * else `npx tidemark` (a clone or a project that depends on it, where bare `tidemark` is
 * "command not found"). binPath is the running `bin/tidemark.js`.
 */
export function invocationName(env: NodeJS.ProcessEnv, cwd: string, binPath?: string): string {
  if (!binPath || env.npm_command === "exec") return "npx tidemark";
  const pkgDir = path.dirname(path.dirname(path.resolve(binPath)));
  const modules = path.dirname(pkgDir);
  if (path.basename(modules) !== "node_modules") return "npx tidemark";
  // A project's own node_modules (cwd inside the project): npx finds it there.
  const project = path.dirname(modules);
  const rel = path.relative(project, cwd);
  const insideProject = rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  return insideProject ? "npx tidemark" : "tidemark";
}

/**
 * A bare `tidemark <command>` in a printed line: not already after `npx `, not part of a
 * longer word or path, followed by a subcommand or an option.
 */
const BARE_COMMAND = /(?<![\w./@-])(?<!npx )tidemark (?=-|[a-z])/g;

/**
 * The line with every command hint in the form that works where the user is. Pipelines and
 * commands write hints as `tidemark …`; only the CLI knows how it was started.
 */
export function inUserForm(line: string, name: string): string {
  // JSON output is data, printed as stored.
  if (name === "tidemark" || /^\s*[[{]/.test(line)) return line;
  return line.replace(BARE_COMMAND, `${name} `);
}
