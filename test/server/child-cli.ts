import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TSX_IMPORT } from "../../src/testing/run-cli.ts";

const TEST_CLI = fileURLToPath(new URL("../fixtures/test-cli.ts", import.meta.url));

/** A long-running CLI child process (`serve`, `worker`) with its output collected. */
export interface CliChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout+stderr; rejects on exit/timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Sends SIGTERM and waits for the exit. */
  terminate(): Promise<number | null>;
}

/** Starts the real CLI with the test registry (job type `test.echo`) in a child process. */
export function startCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): CliChild {
  const child = spawn(process.execPath, ["--import", TSX_IMPORT, TEST_CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, TIDEMARK_LOG_LEVEL: "info", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end();
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    notify();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    notify();
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      exitCode = code;
      notify();
      resolve(code);
    });
  });
  const handle: CliChild = {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in:\n${out}\n${err}`));
        }, timeoutMs);
        function check() {
          const m = (out + err).match(pattern);
          if (m) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(m);
          } else if (exitCode !== undefined) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`exited (${exitCode}) before ${pattern}:\n${out}\n${err}`));
          }
        }
        waiters.add(check);
        check();
      });
    },
    async terminate() {
      if (exitCode === undefined) child.kill("SIGTERM");
      return exited;
    },
  };
  return handle;
}

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
