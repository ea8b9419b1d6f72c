// Builds dist/: src/ bundled by esbuild into a few ES modules, and the public entries' type
// declarations in dist/types (`npm run build`, also run by `npm install` through `prepare`). Loading ~700 small files (kysely alone is 260) cost the CLI
// ~150 ms per start; a bundle with code splitting loads a handful, and lazy imports stay lazy.
//
//   tsx scripts/build.ts [outdir]
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { gitHead } from "../src/infra/build/code-commit.ts";

/** The package root. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Entry modules. Worker-thread modules are entries of their own, next to the chunks, because
 * startWorkerThread (src/engine/threads) finds them as `./<name>.js` beside their caller.
 */
export const ENTRY_POINTS = {
  main: "src/cli/main.ts",
  // The package's public entries (package.json "exports"): built with the CLI, sharing its
  // chunks, so a pipeline loaded from `plugins:` gets the very classes the CLI checks against.
  "sdk/index": "src/sdk/index.ts",
  "sdk/kit": "src/sdk/kit.ts",
  "sdk/testing": "src/sdk/testing.ts",
  "csv-worker": "src/pipelines/snapshots/stages/parse/byte-csv/csv-worker.ts",
  "xlsx-worker": "src/pipelines/snapshots/stages/parse/extract/xlsx-worker.ts",
};

/** The worker-thread entries, built apart from the CLI's chunks (see buildDist). */
const WORKER_ENTRIES = ["csv-worker", "xlsx-worker"] as const;

/** The entries that share chunks: the CLI and the public entries. */
const SHARED_ENTRIES = ["main", "sdk/index", "sdk/kit", "sdk/testing"] as const;

/**
 * Left to node_modules: native addons, packages with optional or platform-specific requires or
 * worker transports resolved by file path, and big ones loaded only by some commands.
 */
const EXTERNAL = [
  "better-sqlite3",
  "pg",
  "pg-native",
  "pg-boss",
  "@aws-sdk/*",
  "exceljs",
  "unzipper",
  // Its code tables (~550 KB) would be parsed by every process and CSV worker thread; from
  // node_modules they load only when a legacy encoding is used.
  "iconv-lite",
  "pino",
  "pino-pretty",
  "thread-stream",
  "nodemailer",
  "smtp-server",
  "prom-client",
  "tsx",
  "tsx/*",
  // Only `tidemark/testing` loads these, from the user's own devDependencies.
  "vitest",
  "vitest/*",
  "esbuild",
];

/**
 * The worker threads bundle exceljs and its ZIP parser: loading them from node_modules (a few
 * hundred CommonJS files) took the XLSX worker ~0.2 s before it read a byte, half of it bundled.
 */
const WORKER_EXTERNAL = EXTERNAL.filter((name) => name !== "exceljs" && name !== "unzipper");

/**
 * Our modules have no import-time side effects (nothing in src/ is imported for one), so a module
 * none of whose exports are used can be left out. Without this, re-exports through the public
 * entries (src/sdk/kit.ts above all) pull every engine module into each entry's static graph —
 * including the CSV worker threads', which would parse megabytes of code they never run.
 */
const sideEffectFreeSources: Plugin = {
  name: "side-effect-free-sources",
  setup(b) {
    const src = path.join(ROOT, "src") + path.sep;
    b.onResolve({ filter: /^\.{1,2}\/.*\.ts$/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      const resolved = path.resolve(args.resolveDir, args.path);
      return resolved.startsWith(src) ? { path: resolved, sideEffects: false } : undefined;
    });
  },
};

/**
 * zod's namespace `z` carries `z.locales`, every language's error messages (~370 KB that each
 * command would parse at start); nothing here sets another locale than the English zod
 * configures itself, and the SDK does not hand out this zod. Its index keeps English only.
 */
const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: "zod-locales", namespace: "zod-english-only" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: ROOT,
    }));
  },
};

/** Options both builds share. */
function common(outdir: string) {
  return {
    absWorkingDir: ROOT,
    outdir,
    bundle: true,
    format: "esm" as const,
    platform: "node" as const,
    target: "node20.19",
    sourcemap: "linked" as const,
    external: EXTERNAL,
    plugins: [sideEffectFreeSources, zodEnglishOnly],
    // Bundled CommonJS packages call require(); ES modules have none of their own.
    banner: {
      js: "import { createRequire as __tidemarkCreateRequire } from 'node:module'; const require = __tidemarkCreateRequire(import.meta.url);",
    },
    // manifest.code_commit names the commit the build came from, not whatever is checked out later.
    define: { __TIDEMARK_BUILD_COMMIT__: JSON.stringify(gitHead(ROOT) ?? "") },
    logLevel: "warning" as const,
  };
}

/**
 * Bundles src/ into outdir (emptied first); returns the entry module's path. The CLI is split
 * into shared chunks; each worker-thread entry is one tree-shaken file of its own, because with
 * code splitting a chunk that re-exports the engine's public face imports every chunk behind
 * it, and each of up to four CSV worker threads would load megabytes it never runs.
 */
export async function buildDist(outdir: string = path.join(ROOT, "dist")): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  const workers = Object.fromEntries(WORKER_ENTRIES.map((name) => [name, ENTRY_POINTS[name]]));
  const shared = Object.fromEntries(SHARED_ENTRIES.map((name) => [name, ENTRY_POINTS[name]]));
  await Promise.all([
    build({
      ...common(outdir),
      entryPoints: shared,
      splitting: true,
      chunkNames: "chunk-[hash]",
    }),
    build({ ...common(outdir), entryPoints: workers, external: WORKER_EXTERNAL }),
  ]);
  return path.join(outdir, "main.js");
}

/**
 * Writes the public entries' type declarations under `<outdir>/types` (tsconfig.build.json),
 * with relative imports ending in `.js` so a consumer's TypeScript finds each `.d.ts`.
 */
export function buildDeclarations(outdir: string = path.join(ROOT, "dist")): void {
  const types = path.join(outdir, "types");
  rmSync(types, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(
    process.execPath,
    [tsc, "-p", path.join(ROOT, "tsconfig.build.json"), "--outDir", types],
    { stdio: "inherit" },
  );
  for (const file of readdirSync(types, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".d.ts")) continue;
    const full = path.join(types, file);
    const text = readFileSync(full, "utf8");
    const fixed = text.replace(/((?:from |import\()["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2");
    if (fixed !== text) writeFileSync(full, fixed);
  }
}

/**
 * Bundles one script the way dist/ is bundled (a benchmark's child process, so that it is
 * measured as the product runs, not under tsx); `outFile` must sit where node_modules resolves.
 */
export async function bundleScript(entry: string, outFile: string): Promise<void> {
  const { outdir: _outdir, ...options } = common(path.dirname(outFile));
  await build({ ...options, entryPoints: [entry], outfile: outFile });
}

/**
 * The layout `npm install` produces, in `dir` (benchmarks and tests of the built CLI): the
 * bundle in dist/, package.json, bin/, and links to this checkout's node_modules and docs.
 * Returns the path of `bin/tidemark.js` there.
 */
export async function buildInstalledLayout(dir: string): Promise<string> {
  await buildDist(path.join(dir, "dist"));
  copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  copyFileSync(path.join(ROOT, "bin", "tidemark.js"), path.join(dir, "bin", "tidemark.js"));
  for (const link of ["node_modules", "docs"]) {
    if (!existsSync(path.join(dir, link))) symlinkSync(path.join(ROOT, link), path.join(dir, link));
  }
  return path.join(dir, "bin", "tidemark.js");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
  const started = performance.now();
  const main = await buildDist(out);
  buildDeclarations(out);
  console.log(
    `built ${path.relative(process.cwd(), main)} in ${Math.round(performance.now() - started)} ms`,
  );
}
