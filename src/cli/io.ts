import type { DestinationStream } from "pino";

/** Where a CLI invocation reads and writes; tests pass their own to run the CLI in-process. */
export interface CliIo {
  out(text: string): void;
  /**
   * Streams text to stdout, waiting while the reader is slow; false once the reader has gone.
   * Absent: out() is used and the reader never goes away.
   */
  write?(text: string): Promise<boolean>;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Reads all of standard input (for `hash -`). */
  readStdin(): Promise<Buffer>;
  /** Log destination; default stderr. */
  logDestination?: DestinationStream;
  /** True when stdout is an interactive terminal (progress bars, pretty logs). */
  isTTY: boolean;
  /** The terminal's width in columns, when stdout is one (tables are fitted to it). */
  columns?: number;
  /** The running `bin/tidemark.js`: printed hints say `tidemark` only from a global install. */
  binPath?: string;
}

/**
 * stdout of this process. Once its reader has gone (`tidemark snapshots read x | head`), output
 * is dropped instead of crashing on EPIPE, and streaming commands learn it from write().
 */
const stdout = {
  gone: false,
  listening: false,
  waiters: new Set<() => void>(),
  watch(): void {
    if (this.listening) return;
    this.listening = true;
    process.stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
      this.gone = true;
      for (const wake of this.waiters) wake();
    });
  },
  out(text: string): void {
    if (!this.gone) process.stdout.write(text);
  },
  async write(text: string): Promise<boolean> {
    if (this.gone) return false;
    if (!process.stdout.write(text)) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          process.stdout.off("drain", wake);
          resolve();
        };
        this.waiters.add(wake);
        process.stdout.on("drain", wake);
      });
    }
    return !this.gone;
  },
};

/** The real process's streams. */
export function processIo(): CliIo {
  stdout.watch();
  return {
    out: (t) => stdout.out(t),
    write: (t) => stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
    isTTY: Boolean(process.stdout.isTTY),
    columns: process.stdout.columns,
    binPath: process.argv[1],
  };
}
