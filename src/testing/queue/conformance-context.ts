import { randomBytes } from "node:crypto";
import { onTestFinished } from "vitest";
import type { Queue, QueueHandler, QueueMessage } from "../../engine/queue/queue.ts";
import { openQueueFromSpec, type QueueSpec } from "./queue-spec.ts";

/** Time settings an engine needs to run the suite quickly but reliably. */
export interface QueueConformanceOptions {
  /** Visibility timeout of the crash and heartbeat tests (pg-boss counts whole seconds). */
  visibilitySeconds: number;
  /** Retry delay of the retry tests (pg-boss: whole seconds). */
  retryDelaySeconds: number;
  /** Worst delay between a hold expiring and the message being deliverable again. */
  expirySlackMs: number;
}

/** The store under test; shared by the suite's tests, which each use their own queue names. */
export interface QueueConformanceTarget {
  spec: QueueSpec;
}

/** One handler call, as a test records it. */
export interface Delivered {
  message: QueueMessage<unknown>;
  at: number;
}

/** What each group of conformance tests gets. */
export interface ConformanceContext {
  readonly options: QueueConformanceOptions;
  /** The store (available inside tests, after the suite's setup ran). */
  target(): QueueConformanceTarget;
  /** A Queue on its own connections, closed when the test ends. */
  open(): Promise<Queue>;
  /** A queue name no other test uses. */
  queueName(): string;
}

/** Builds the context; `target` is filled in by the suite's beforeAll. */
export function conformanceContext(
  options: QueueConformanceOptions,
  target: () => QueueConformanceTarget,
): ConformanceContext {
  return {
    options,
    target,
    async open() {
      const opened = await openQueueFromSpec(target().spec);
      onTestFinished(() => opened.close());
      return opened.queue;
    },
    queueName: () => `conf.${randomBytes(4).toString("hex")}`,
  };
}

/** A handler that records every delivery, then runs `then` (default: succeed). */
export function recorder(
  then: (message: QueueMessage<unknown>, signal: AbortSignal) => Promise<void> = async () => {},
): { handler: QueueHandler<unknown>; calls: Delivered[] } {
  const calls: Delivered[] = [];
  return {
    calls,
    handler: async (message, signal) => {
      calls.push({ message, at: Date.now() });
      await then(message, signal);
    },
  };
}

/** Fast polling for tests. */
export const FAST = { pollIntervalMs: 50 } as const;
