// The queue benchmark's workload, shared by the orchestrator and each engine's process.

/** Same for every engine. */
export const BENCH = {
  /** No-op messages sent then processed. */
  messages: 20_000,
  /** Messages per sendBatch / pg-boss insert call. */
  sendBatch: 1_000,
  /** Messages sent one send() at a time (the HTTP API's pattern). */
  single: 1_000,
  /** Worker settings: claims of batchSize, up to concurrency handlers at once. */
  work: { concurrency: 100, batchSize: 50, pollIntervalMs: 100 },
} as const;

/** What one engine's process reports. */
export interface EngineResult {
  engine: "embedded-sqlite" | "embedded-postgres" | "pg-boss" | "pg-boss-raw";
  sendPerSec: number;
  singleSendPerSec: number;
  processPerSec: number;
  peakRssMb: number;
}
