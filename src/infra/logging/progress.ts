import cliProgress from "cli-progress";

/** Reports progress of a long loop: a bar on a TTY, nothing otherwise. */
export interface ProgressReporter {
  /** Adds `n` (default 1) done items; `figures` (e.g. `{ changed: 3, failed: 1 }`) show beside the bar. */
  tick(n?: number, figures?: Readonly<Record<string, number>>): void;
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
      format: `${label} [{bar}] {value}/{total} {percentage}% eta {eta}s{figures}`,
      stream,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total ?? 0, 0, { figures: "" });
  const text = (figures: Readonly<Record<string, number>>) =>
    Object.entries(figures)
      .map(([k, v]) => `  ${k} ${v}`)
      .join("");
  return {
    tick: (n = 1, figures) => bar.increment(n, figures ? { figures: text(figures) } : undefined),
    setTotal: (t) => bar.setTotal(t),
    stop: () => bar.stop(),
  };
}
