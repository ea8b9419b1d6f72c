import { describe, expect, it } from "vitest";
import { CallAbort, isAttemptTimeout } from "./call-abort.ts";

describe("CallAbort", () => {
  it("aborts on the caller's signal with its reason, once, and tells it from a timeout", () => {
    const caller = new AbortController();
    const call = new CallAbort(caller.signal, 10_000);
    const seen: unknown[] = [];
    call.onAbort((reason) => seen.push(reason));
    caller.abort(new Error("stop"));
    call.abort(new Error("later"));
    expect(seen).toHaveLength(1);
    expect(call.reason).toHaveProperty("message", "stop");
    expect(isAttemptTimeout(call.reason)).toBe(false);
  });

  it("times out with an AttemptTimeoutError", async () => {
    const call = new CallAbort(undefined, 20);
    const reason = await new Promise((resolve) => call.onAbort(resolve));
    expect(isAttemptTimeout(reason)).toBe(true);
    expect((reason as DOMException).name).toBe("TimeoutError");
  });

  it("is aborted from the start on an aborted signal; a handler set later runs at once", () => {
    const call = new CallAbort(AbortSignal.abort(new Error("gone")), undefined);
    const seen: unknown[] = [];
    call.onAbort((reason) => seen.push(reason));
    expect(call.aborted).toBe(true);
    expect(seen).toEqual([call.reason]);
  });

  it("after dispose, neither the caller's abort nor the timer reaches it", async () => {
    const caller = new AbortController();
    const other = new CallAbort(caller.signal, undefined);
    const call = new CallAbort(caller.signal, 20);
    call.onAbort(() => expect.fail("aborted after dispose"));
    call.dispose();
    await new Promise((r) => setTimeout(r, 40));
    caller.abort(new Error("stop"));
    expect(call.aborted).toBe(false);
    expect(other.aborted).toBe(true);
  });
});
