import { beforeAll, describe } from "vitest";
import {
  type ConformanceContext,
  conformanceContext,
  type QueueConformanceOptions,
  type QueueConformanceTarget,
} from "./conformance-context.ts";
import { deferredTests } from "./conformance-deferred.ts";
import { deliveryTests } from "./conformance-delivery.ts";
import { failureTests } from "./conformance-failures.ts";
import { inspectionTests } from "./conformance-inspection.ts";
import { processTests } from "./conformance-processes.ts";
import { stopTests } from "./conformance-stop.ts";

export type {
  QueueConformanceOptions,
  QueueConformanceTarget,
} from "./conformance-context.ts";

/**
 * Registers the behaviour every Queue engine must show: delivery, singleton dedupe, delayed
 * start, retries with backoff, dead-letter, a SIGKILLed worker's message coming back after
 * the visibility timeout, two worker processes never sharing a message, hold renewal, and
 * graceful stop, deferred work finishing after its handler. `setup` runs once and returns a fresh store that only this suite uses; each
 * test works on queues of its own.
 */
export function describeQueueConformance(
  name: string,
  setup: () => Promise<QueueConformanceTarget>,
  options: QueueConformanceOptions,
): void {
  describe(`Queue conformance: ${name}`, () => {
    let target: QueueConformanceTarget | undefined;
    beforeAll(async () => {
      target = await setup();
    });
    const c: ConformanceContext = conformanceContext(options, () => {
      if (!target) throw new Error("queue conformance: setup has not run");
      return target;
    });
    describe("delivery", () => deliveryTests(c));
    describe("failures", () => failureTests(c));
    describe("deferred work", () => deferredTests(c));
    describe("inspection", () => inspectionTests(c));
    describe("stop", () => stopTests(c));
    describe("worker processes", () => processTests(c));
  });
}
