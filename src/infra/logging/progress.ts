import cliProgress from "cli-progress";

/** Reports progress of a long loop: a bar on a TTY, nothing otherwise. */
export interface ProgressReporter {
  /** Adds `n` (default 1) done items. */
  tick(n?: number): void;
  /** Sets or changes the expected total. */
  setTotal(total: number): void;
  stop(): void;
}

const silent: ProgressReporter = { tick() {}, setTotal() {}, stop() {} };

/** A silent reporter (no TTY, tests, --json). */
export function silentProgress(): ProgressReporter {
  return silent;
}

/**
 * A progress bar on stderr when it is a TTY; silent otherwise so logs and pipes stay clean.
 */
export function createProgress(
  label: string,
  total: number | undefined,
  stream: NodeJS.WriteStream = process.stderr,
): ProgressReporter {
  if (!stream.isTTY) return silent;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total} {percentage}% eta {eta}s`,
      stream,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total ?? 0, 0);
  return {
    tick: (n = 1) => bar.increment(n),
    setTotal: (t) => bar.setTotal(t),
    stop: () => bar.stop(),
  };
}
