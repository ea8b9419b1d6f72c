import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/** The package root: the nearest folder above this module with tidemark's package.json. */
function packageRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "tidemark")
          return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** The commit a git checkout at root is on (read from .git, no git process); undefined if none. */
export function gitHead(root: string): string | undefined {
  const git = path.join(root, ".git");
  if (!existsSync(path.join(git, "HEAD"))) return undefined;
  const head = readFileSync(path.join(git, "HEAD"), "utf8").trim();
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref: (.+)$/.exec(head)?.[1];
  if (!ref) return undefined;
  const loose = path.join(git, ref);
  if (existsSync(loose)) return readFileSync(loose, "utf8").trim();
  const packed = path.join(git, "packed-refs");
  if (!existsSync(packed)) return undefined;
  for (const line of readFileSync(packed, "utf8").split("\n")) {
    const [sha, name] = line.split(" ");
    if (name === ref && sha) return sha;
  }
  return undefined;
}

/** Set by the bundler (scripts/build.ts) to the commit dist/ was built from; absent in sources. */
declare const __TIDEMARK_BUILD_COMMIT__: string | undefined;

/** The commit the running build was made from, if the bundler recorded one. */
function buildCommit(): string | undefined {
  return typeof __TIDEMARK_BUILD_COMMIT__ === "string" && __TIDEMARK_BUILD_COMMIT__
    ? __TIDEMARK_BUILD_COMMIT__
    : undefined;
}

/**
 * The code version a run records (snapshots manifest.code_commit): TIDEMARK_CODE_COMMIT
 * when set, else the commit dist/ was built from, else the commit the package's git checkout
 * is on (sources), else "unknown".
 */
export function codeCommit(): string {
  if (cached === undefined) {
    const env = process.env.TIDEMARK_CODE_COMMIT?.trim();
    let found: string | undefined = env || buildCommit();
    if (!found) {
      try {
        const root = packageRoot();
        found = root ? gitHead(root) : undefined;
      } catch {
        found = undefined;
      }
    }
    cached = found ?? "unknown";
  }
  return cached;
}
