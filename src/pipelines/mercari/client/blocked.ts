import type { Registry as PromRegistry } from "prom-client";

/** Blocked crawls seen by this process, by where the block showed (search or detail). */
const blocked = new Map<string, number>();

/** Counts one blocked request (read by `tidemark_mercari_blocked_total` on scrape). */
export function countBlocked(phase: "list" | "detail", reason: string): void {
  const key = `${phase}\u0000${reason}`;
  blocked.set(key, (blocked.get(key) ?? 0) + 1);
}

/** Answers that were not the shape Mercari documents, by endpoint and why (failed requests). */
const failedAnswers = new Map<string, number>();

/**
 * Counts one request failed on an answer Mercari does not document (a 404 without its
 * not-found body, a repeated page token); read by `tidemark_mercari_failed_answers_total`.
 */
export function countFailedAnswer(endpoint: "search" | "detail", reason: string): void {
  const key = `${endpoint}\u0000${reason}`;
  failedAnswers.set(key, (failedAnswers.get(key) ?? 0) + 1);
}

/** Failed answers counted so far in this process (tests). */
export function failedAnswerCount(endpoint: "search" | "detail", reason: string): number {
  return failedAnswers.get(`${endpoint}\u0000${reason}`) ?? 0;
}

/** Blocked crawls counted so far in this process (tests, the demo). */
export function blockedCount(): number {
  let n = 0;
  for (const v of blocked.values()) n += v;
  return n;
}

/** Registers `tidemark_mercari_blocked_total{phase,reason}` on the process's registry. */
export async function registerMercariMetrics(register: PromRegistry): Promise<void> {
  const { Counter } = await import("prom-client");
  new Counter({
    name: "tidemark_mercari_blocked_total",
    help: "Mercari crawls this process found blocked (403/429, an HTML block page, or an empty first page where results were expected); retried later, nothing deleted",
    labelNames: ["phase", "reason"],
    registers: [register],
    collect() {
      this.reset();
      for (const [key, value] of blocked) {
        const [phase = "", reason = ""] = key.split("\u0000");
        this.inc({ phase, reason }, value);
      }
    },
  });
  new Counter({
    name: "tidemark_mercari_failed_answers_total",
    help: "Mercari requests failed on an answer that is not the shape Mercari documents (a 404 without its not-found body, a repeated page token); nothing deleted or skipped on them",
    labelNames: ["endpoint", "reason"],
    registers: [register],
    collect() {
      this.reset();
      for (const [key, value] of failedAnswers) {
        const [endpoint = "", reason = ""] = key.split("\u0000");
        this.inc({ endpoint, reason }, value);
      }
    },
  });
}
