/**
 * Running the CLI from a benchmark: the package root, a production-layout build in a temp
 * folder or the sources, and one invocation in a child process measured (wall time, CPU, peak
 * RSS).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildInstalledLayout } from "../../scripts/build.ts";
import { spawnCollect } from "./spawn-collect.ts";

/** The package root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** How to start the CLI: compiled (production layout) or from the TypeScript sources. */
export interface CliEntry {
  kind: "dist" | "source";
  /** A module exporting main(argv). */
  mainUrl: string;
}

/** Builds the installed layout (scripts/build.ts) in `dir`; returns the CLI entry there. */
export async function buildDist(dir: string): Promise<CliEntry> {
  await buildInstalledLayout(dir);
  return { kind: "dist", mainUrl: pathToFileURL(path.join(dir, "dist", "main.js")).href };
}

/** The CLI from sources through tsx (slower start, more memory: only with --from-source). */
export function sourceEntry(): CliEntry {
  return { kind: "source", mainUrl: pathToFileURL(path.join(ROOT, "src", "cli", "main.ts")).href };
}

/** What one CLI invocation cost. */
export interface ChildRun {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak resident set size of the whole process (all threads), from getrusage. */
  peakRssMb: number;
  /** CPU time of the whole process (user + system, all threads), from getrusage. */
  cpuMs: number;
}

/** The line a measured script prints last on standard error: peak RSS (KiB) and CPU (µs). */
export const MEASURE_LINE =
  'process.stderr.write("\\n@@rss " + process.resourceUsage().maxRSS + " " + (process.resourceUsage().userCPUTime + process.resourceUsage().systemCPUTime) + "\\n");';

/** Runs `tidemark <argv>` in a fresh process and measures it. */
export async function runCli(
  entry: CliEntry,
  argv: string[],
  env: NodeJS.ProcessEnv,
  workDir: string,
): Promise<ChildRun> {
  const wrapper = path.join(workDir, "measure.mjs");
  const register =
    entry.kind === "source"
      ? `(await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})).register();\n`
      : "";
  writeFileSync(
    wrapper,
    `${register}const { main } = await import(${JSON.stringify(entry.mainUrl)});
const code = await main(process.argv.slice(2));
${MEASURE_LINE}
process.exitCode = code;
`,
  );
  return runCliScript(wrapper, argv, env);
}

/** Runs a script that ends with MEASURE_LINE, and measures it. */
export async function runCliScript(
  script: string,
  argv: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildRun> {
  const run = await spawnCollect([script, ...argv], { env });
  const m = /@@rss (\d+) (\d+)/.exec(run.stderr);
  return {
    ...run,
    peakRssMb: m ? Number(m[1]) / 1024 : Number.NaN,
    cpuMs: m ? Number(m[2]) / 1000 : Number.NaN,
  };
}
