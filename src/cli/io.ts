import type { DestinationStream } from "pino";

/** Where a CLI invocation reads and writes; tests pass their own to run the CLI in-process. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Reads all of standard input (for `hash -`). */
  readStdin(): Promise<Buffer>;
  /** Log destination; default stderr. */
  logDestination?: DestinationStream;
  /** True when stdout is an interactive terminal (progress bars, pretty logs). */
  isTTY: boolean;
}

/** The real process's streams. */
export function processIo(): CliIo {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
    isTTY: Boolean(process.stdout.isTTY),
  };
}
