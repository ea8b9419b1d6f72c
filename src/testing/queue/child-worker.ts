import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ChildPlan } from "./queue-child.ts";

const CHILD = fileURLToPath(new URL("./queue-child.ts", import.meta.url));

/** One line of the shared log. */
export interface LogEvent {
  ev: "start" | "end";
  id: string;
  attempt: number;
  pid: number;
  t: number;
}

/** A worker process started by a test. */
export interface ChildWorker {
  readonly process: ChildProcess;
  /** Resolves once the child consumes its queue. */
  readonly ready: Promise<void>;
  /** Resolves with the exit code or signal name. */
  readonly exited: Promise<string>;
}

/** Starts queue-child.ts with a plan; stderr is kept for the failure message. */
export function spawnChildWorker(plan: ChildPlan): ChildWorker {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(plan)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<string>((resolve) => {
    child.on("exit", (code, signal) => resolve(signal ?? String(code)));
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve();
    });
    void exited.then((how) =>
      reject(new Error(`queue child exited (${how}) before ready:\n${stderr}`)),
    );
  });
  return { process: child, ready, exited };
}

/** The events of a shared log so far. */
export function readLog(file: string): LogEvent[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as LogEvent);
}
