import { spawn } from "node:child_process";
import { TSX_IMPORT } from "./run-cli.ts";

/** A child process that prints `ready`, waits for `go()`, then reports one JSON line and exits. */
export interface GatedChild<R> {
  ready: Promise<void>;
  go(): void;
  /** The child's JSON report, once it has exited with code 0. */
  report: Promise<R>;
}

/**
 * Starts `script` (TypeScript, through tsx) with `plan` as its argument. Several children are
 * released together with `go()`, so their work overlaps (cross-process tests).
 */
export function startGatedChild<R>(script: string, plan: unknown): GatedChild<R> {
  const child = spawn(process.execPath, ["--import", TSX_IMPORT, script, JSON.stringify(plan)], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      if (out.includes("ready\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`child exited (${code}) before ready:\n${err}`)));
  });
  const report = exited.then((code) => {
    const line = out.split("\n").find((l) => l.startsWith("{"));
    if (code !== 0 || !line) throw new Error(`child exited (${code}):\n${out}\n${err}`);
    return JSON.parse(line) as R;
  });
  return { ready, go: () => child.stdin.end("go\n"), report };
}
