import type { openRakutenHarness } from "./rakuten-harness.ts";

/**
 * Holds every request of the harness's runs at the fake until `release()`: `reached` resolves
 * once the first request is waiting, so a test can act while a run is mid-flight.
 */
export function gateRequests(t: Awaited<ReturnType<typeof openRakutenHarness>>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let atGate!: () => void;
  const reached = new Promise<void>((r) => {
    atGate = r;
  });
  t.hooks.beforeRequest = async () => {
    atGate();
    await gate;
  };
  return { reached, release };
}
