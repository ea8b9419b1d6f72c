import { expect, it } from "vitest";
import { createLogger } from "../../infra/logging/logger.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { startHeartbeat } from "./lease-heartbeat.ts";

describeEachDialect("lease heartbeat", (h) => {
  it("a lost lease is logged naming the lease (a log reader must see which one)", async () => {
    const clock = new ManualClock("2026-05-01T00:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await rt.leases.tryAcquire("snapshots:acme", "run-a", 60_000);
    clock.advance(61_000);
    await rt.leases.tryAcquire("snapshots:acme", "run-b", 60_000);
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (l) => lines.push(l) } });
    const lost = new Promise<void>((onLost) => {
      startHeartbeat({
        leases: rt.leases,
        key: "snapshots:acme",
        holder: "run-a",
        ttlMs: 150,
        logger,
        onLost,
      });
    });
    await lost;
    const line = JSON.parse(lines.find((l) => l.includes("lease lost")) ?? "{}");
    expect(line).toMatchObject({ lease: "snapshots:acme", holder: "run-a" });
    expect(JSON.stringify(line)).not.toContain("[REDACTED]");
  });
});
