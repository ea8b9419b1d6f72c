/** argv of a printed `npx tidemark …` hint. */
export function hintArgv(line: string): string[] {
  const m = /npx tidemark (.+)$/.exec(line);
  if (!m) throw new Error(`no command in ${line}`);
  return m[1]!.trim().split(/\s+/);
}

/** The demo's printed `npx tidemark -c …` hints. */
export function demoHints(stdout: string): string[] {
  return stdout.split("\n").filter((l) => l.includes("npx tidemark -c"));
}

/**
 * The hints a test can run to their end: all but the dashboard's `serve`, a server that runs
 * until stopped (the serve tests cover it).
 */
export function runnableHints(stdout: string): string[] {
  return demoHints(stdout).filter((l) => !hintArgv(l).includes("serve"));
}
