/**
 * Per-process schedule offsets: each job's offset is drawn once (uniform in
 * [0, jitter seconds], whole seconds) the first time this process schedules it, the way a
 * `${s} ${m}/5 * * * *` schedule with random fields draws its second and minute once per
 * process to spread load. A job whose jitter setting changes gets a new draw.
 */
export class JitterTable {
  readonly #drawn = new Map<string, { max: number; offsetMs: number }>();

  /** `random` returns a number in [0, 1); injectable for deterministic tests. */
  constructor(private readonly random: () => number = Math.random) {}

  /** The job's offset in milliseconds (0 when maxSeconds is 0). */
  offsetMs(jobName: string, maxSeconds: number): number {
    const current = this.#drawn.get(jobName);
    if (current && current.max === maxSeconds) return current.offsetMs;
    const offsetMs =
      maxSeconds > 0
        ? Math.min(maxSeconds, Math.floor(this.random() * (maxSeconds + 1))) * 1000
        : 0;
    this.#drawn.set(jobName, { max: maxSeconds, offsetMs });
    return offsetMs;
  }
}
