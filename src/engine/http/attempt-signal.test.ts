import { describe, expect, it } from "vitest";
import { attemptSignal } from "./attempt-signal.ts";

describe("attemptSignal", () => {
  it("aborts on timeout and reports it as a timeout", async () => {
    const caller = new AbortController();
    const a = attemptSignal(caller.signal, 20);
    await new Promise((r) => a.signal.addEventListener("abort", r));
    expect(a.timedOut()).toBe(true);
    expect((a.signal.reason as Error).name).toBe("TimeoutError");
    a.dispose();
  });

  it("aborts with the caller's reason, which is not a timeout", () => {
    const caller = new AbortController();
    const a = attemptSignal(caller.signal, 10_000);
    caller.abort(new Error("stop"));
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as Error).message).toBe("stop");
    expect(a.timedOut()).toBe(false);
  });

  it("stops following the caller once disposed", () => {
    const caller = new AbortController();
    const a = attemptSignal(caller.signal, 10_000);
    a.dispose();
    caller.abort();
    expect(a.signal.aborted).toBe(false);
  });

  it("works without a caller signal and with an already aborted one", () => {
    expect(attemptSignal(undefined, 10_000).signal.aborted).toBe(false);
    expect(attemptSignal(AbortSignal.abort(), 10_000).signal.aborted).toBe(true);
  });
});
