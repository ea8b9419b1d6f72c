/**
 * TEST-ONLY hook for the exactly-once tests: with TIDEMARK_TEST_KILL_AFTER_RUN=1 the worker
 * SIGKILLs itself right after a requested run has ended and been recorded, before its queue
 * message is acknowledged — the window in which a broker redelivers a request that already ran.
 * Never set it in production.
 */
export function killAfterRunIfAsked(): void {
  if (process.env.TIDEMARK_TEST_KILL_AFTER_RUN === "1") process.kill(process.pid, "SIGKILL");
}
