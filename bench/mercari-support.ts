/**
 * Helpers of bench/mercari.ts: the fake Mercari API and Crawlee in child processes, fresh
 * Postgres databases, and `tidemark` processes started from a given CLI entry.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { CliEntry } from "./support/cli-run.ts";
import { spawnCollect } from "./support/spawn-collect.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TSX = import.meta.resolve("tsx");

/** A fake Mercari API in its own process. */
export interface FakeChild {
  url: string;
  /** `GET /_fake/<path>` as JSON. */
  get<T>(what: string): Promise<T>;
  stop(): Promise<void>;
}

/** Starts bench/mercari-fake-child.ts and waits for its URL. */
export async function startFakeChild(
  keyword: string,
  listings: number,
  latencyMs: number,
): Promise<FakeChild> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX,
      path.join(HERE, "mercari-fake-child.ts"),
      keyword,
      String(listings),
      String(latencyMs),
      "3",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => resolve(line.trim()));
    child.once("exit", (code) => reject(new Error(`fake exited with ${code} before serving`)));
  });
  return {
    url,
    async get<T>(what: string) {
      return (await (await fetch(`${url}/_fake/${what}`)).json()) as T;
    },
    stop() {
      return new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
}

/** A fresh Postgres database on the server of `adminUrl`, dropped by drop(). */
export async function freshPgDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import("pg");
  const name = `tm_bench_mercari_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** One query's rows on `url`. */
export async function pgQuery<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const { default: pg } = await import("pg");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** What a `tidemark` process printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Writes the wrapper that runs the CLI entry's main() in a child process. */
export function writeCliWrapper(entry: CliEntry, workDir: string): string {
  const wrapper = path.join(workDir, "tidemark.mjs");
  const register =
    entry.kind === "source"
      ? `(await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})).register();\n`
      : "";
  // TIDEMARK_BENCH_CPU_PROF=<dir>: each CLI process writes a CPU profile there (NODE_OPTIONS
  // refuses --cpu-prof), e.g. to measure a worker's CPU per message.
  const profile = `const profDir = process.env.TIDEMARK_BENCH_CPU_PROF;
let session;
if (profDir) {
  const { Session } = await import("node:inspector/promises");
  session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
`;
  const save = `if (session) {
  const { profile } = await session.post("Profiler.stop");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(\`\${profDir}/\${process.argv[4] ?? "cli"}-\${process.pid}.cpuprofile\`, JSON.stringify(profile));
}
`;
  writeFileSync(
    wrapper,
    `${register}${profile}const { main } = await import(${JSON.stringify(entry.mainUrl)});
process.exitCode = await main(process.argv.slice(2));
${save}const cpu = process.cpuUsage();
process.stderr.write(\`bench-cpu-ms \${Math.round((cpu.user + cpu.system) / 1000)}\\n\`);
`,
  );
  return wrapper;
}

/** Runs `tidemark <argv>` in a child process. */
export function tidemark(
  wrapper: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<CliRun> {
  return spawnCollect([wrapper, ...argv], { cwd, env });
}

/** What the Crawlee child reports. */
export interface CrawleeResult {
  wallMs: number;
  searchPages: number;
  listed: number;
  details: number;
  lostDetails: number;
  duplicateDetails: number;
}

/** Runs bench/mercari-crawlee.ts against the fake at `url`. */
export async function runCrawlee(
  url: string,
  keyword: string,
  concurrency: number,
  pageSize: number,
  storageDir: string,
): Promise<CrawleeResult> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX,
      path.join(HERE, "mercari-crawlee.ts"),
      url,
      keyword,
      String(concurrency),
      String(pageSize),
      storageDir,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const line = stdout.trim().split("\n").pop() ?? "";
  if (code !== 0 || !line.startsWith("{"))
    throw new Error(`crawlee child failed (${code}): ${stdout}`);
  return JSON.parse(line) as CrawleeResult;
}
