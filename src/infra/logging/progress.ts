import cliProgress from "cli-progress";

/** Reports progress of a long loop: a bar on a TTY, a line every few seconds otherwise. */
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

/** How often progress is written as a line when stderr is not a terminal. */
export const PROGRESS_LINE_MS = 5_000;

/** `label: 40/100 (40%)  changed 3`. */
function progressLine(
  label: string,
  done: number,
  total: number | undefined,
  figures: Readonly<Record<string, number>>,
): string {
  const share = total ? ` (${Math.floor((done / total) * 100)}%)` : "";
  const more = Object.entries(figures).map(([k, v]) => `  ${k} ${v}`);
  return `${label}: ${done}/${total ?? "?"}${share}${more.join("")}\n`;
}

/**
 * Off a terminal (a pipe, a log file, CI): a line every `intervalMs` while the count moves, so
 * long work is not silent; nothing for work shorter than that.
 */
function lineProgress(
  label: string,
  initialTotal: number | undefined,
  stream: Pick<NodeJS.WritableStream, "write">,
  intervalMs: number,
): ProgressReporter {
  let done = 0;
  let total = initialTotal;
  let figures: Readonly<Record<string, number>> = {};
  let written = 0;
  const timer = setInterval(() => {
    if (done === written) return;
    written = done;
    stream.write(progressLine(label, done, total, figures));
  }, intervalMs);
  timer.unref();
  return {
    tick(n = 1, f) {
      done += n;
      if (f) figures = f;
    },
    setTotal(t) {
      total = t;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * A progress bar on stderr when it is a TTY; otherwise a line every few seconds (see
 * PROGRESS_LINE_MS) so pipes and logs get progress without a bar's control characters.
 */
export function createProgress(
  label: string,
  total: number | undefined,
  stream: NodeJS.WriteStream = process.stderr,
  intervalMs = PROGRESS_LINE_MS,
): ProgressReporter {
  if (!stream.isTTY) return lineProgress(label, total, stream, intervalMs);
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
