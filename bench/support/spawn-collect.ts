import { type ChildProcess, spawn } from "node:child_process";

/** A finished child process: exit code, its whole output and how long it ran. */
export interface Collected {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs `node <args>` (this Node) with piped output and resolves when it exits. */
export function spawnCollect(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<Collected> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    options.onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code: code ?? 1, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}
