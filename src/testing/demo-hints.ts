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

/**
 * `tidemark <command>` hints printed without the `npx ` a clone or a project needs (a path such
 * as `tidemark-demo/` or `bin/tidemark.js` is not a hint).
 */
export function bareHints(text: string): string[] {
  return text.split("\n").filter((l) => /(?<![\w./@-])(?<!npx )tidemark (?=-|[a-z])/.test(l));
}

/** Every `npx tidemark …` command of a printed text, cut at `#`, `&&`, `|`, `,` and `)`. */
export function printedCommands(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/npx tidemark ([^#&|,)`\n]+)/g)) out.push(m[1]!.trim());
  return out;
}
