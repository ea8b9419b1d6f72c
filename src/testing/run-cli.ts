import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { main } from "../cli/main.ts";
import type { Registry } from "../engine/registry/registry.ts";

/** What a CLI invocation printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process with its own cwd/env and captured output (fast). */
export async function runCli(
  argv: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string; registry?: Registry },
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const logDestination = new Writable({
    write(chunk, _enc, cb) {
      stderr += chunk.toString();
      cb();
    },
  });
  const code = await main(
    argv,
    {
      out: (t) => {
        stdout += t;
      },
      err: (t) => {
        stderr += t;
      },
      cwd: options.cwd,
      env: { TIDEMARK_LOG_LEVEL: "warn", ...options.env },
      readStdin: async () => Buffer.from(options.stdin ?? ""),
      logDestination,
      isTTY: false,
    },
    options.registry,
  );
  return { code, stdout, stderr };
}

/** `--import` value that loads tsx from this package whatever the child's cwd is. */
export const TSX_IMPORT = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

const BIN = fileURLToPath(new URL("../../bin/tidemark.js", import.meta.url));

/**
 * Runs the real `tidemark` binary in a child process: this checkout's, from source, or another
 * (`bin`, e.g. a built layout) with whatever it prefers (its dist/).
 */
export function spawnCli(
  argv: string[],
  options: {
    cwd: string;
    env?: NodeJS.ProcessEnv;
    stdin?: string;
    timeoutMs?: number;
    bin?: string;
    /**
     * A TypeScript entry to run through tsx instead of the bin (a test's CLI that installs a
     * fault hook before it runs the command).
     */
    source?: string;
    /** Close our end of the child's stdout once this many bytes came (a reader like `head`). */
    closeStdoutAfter?: number;
  },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const entry = options.source ? ["--import", TSX_IMPORT, options.source] : [options.bin ?? BIN];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TIDEMARK_FROM_SOURCE: options.bin ? "" : "1",
      TIDEMARK_LOG_LEVEL: "warn",
      ...options.env,
    };
    // A built CLI resolves `tidemark` as an installed package does: not through this checkout's
    // tsconfig, which the test process names for the sources' sake.
    if (options.bin) delete env.TSX_TSCONFIG_PATH;
    const child = spawn(process.execPath, [...entry, ...argv], {
      cwd: options.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
      if (options.closeStdoutAfter !== undefined && stdout.length >= options.closeStdoutAfter) {
        child.stdout.destroy();
      }
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}
