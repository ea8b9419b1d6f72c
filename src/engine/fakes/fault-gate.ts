import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type FaultController,
  injectedResponse,
  matchesPath,
  type RateLimitFault,
} from "./fake-faults.ts";
import { sendWeb } from "./fake-send.ts";
import type { FakeServerStats, RecordedRequest } from "./fake-server.ts";

/** Waits `ms` unless the signal aborts first (then resolves early: the server is closing). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** What the fault phase needs of one request. */
export interface GatedRequest {
  method: string;
  path: string;
  /** The request as the log keeps it, built when a delay function asks for it. */
  recorded: () => RecordedRequest;
}

/**
 * The fake server's fault phase, run before the fake answers: a dropped connection, the
 * emulated rate limit (429), the configured delay, then the next injected status of the path.
 */
export class FaultGate {
  #acceptedAt: number[] = [];
  readonly #closing = new AbortController();

  constructor(
    private readonly faults: FaultController,
    private readonly stats: FakeServerStats,
  ) {}

  /** True when a fault answered (or dropped) the request; false: the fake answers it. */
  async answered(req: IncomingMessage, res: ServerResponse, r: GatedRequest): Promise<boolean> {
    const faults = this.faults;
    if (faults.dropConnection) {
      req.socket.destroy();
      return true;
    }
    if (faults.rateLimit && this.#overRateLimit(faults.rateLimit, Date.now())) {
      this.stats.rateLimited++;
      const retryAfter = faults.rateLimit.retryAfterSeconds ?? 1;
      await sendWeb(res, r.method, injectedResponse(429, retryAfter), faults.truncateBody);
      return true;
    }
    await pause(this.#nextDelay(r.recorded), this.#closing.signal);
    if (res.destroyed) return true;
    const step = matchesPath(faults.statusPath, r.path) ? faults.statusSequence.shift() : undefined;
    if (step === "drop") {
      req.socket.destroy();
      return true;
    }
    if (step !== undefined && !(typeof step === "number" && step === 200)) {
      await sendWeb(res, r.method, injectedResponse(step, faults.retryAfter), faults.truncateBody);
      return true;
    }
    return false;
  }

  /** Forgets the rate limit's window and resets the faults. */
  reset(): void {
    this.#acceptedAt = [];
    this.faults.reset();
  }

  /** Ends every pending delay: the server is closing. */
  close(): void {
    this.#closing.abort();
  }

  /** Sliding-window check of the emulated rate limit; records the request when accepted. */
  #overRateLimit(limit: RateLimitFault, now: number): boolean {
    const cap = Math.max(1, Math.floor(limit.requestsPerSecond));
    const windowMs = (cap * 1000) / limit.requestsPerSecond;
    this.#acceptedAt = this.#acceptedAt.filter((t) => now - t < windowMs);
    if (this.#acceptedAt.length >= cap) return true;
    this.#acceptedAt.push(now);
    return false;
  }

  #nextDelay(recorded: () => RecordedRequest): number {
    const d = this.faults.delayMs;
    if (typeof d === "number") return d;
    if (typeof d === "function") return d(recorded());
    const list = [...d];
    const next = list.shift() ?? 0;
    this.faults.delayMs = list;
    return next;
  }
}
