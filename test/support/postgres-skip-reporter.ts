/**
 * Vitest reporter: after a run without TIDEMARK_TEST_PG_URL, one line says how many Postgres
 * tests (the `[postgres]` suites of describeEachDialect) were skipped and why.
 */
import type { Reporter, TestModule } from "vitest/node";

/** The line to print, or undefined when Postgres was configured or nothing was skipped. */
export function postgresSkipLine(
  skippedTestNames: Iterable<string>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (env.TIDEMARK_TEST_PG_URL) return undefined;
  let count = 0;
  for (const name of skippedTestNames) if (name.includes("[postgres]")) count++;
  if (count === 0) return undefined;
  return `[tidemark tests] ${count} Postgres test${count === 1 ? "" : "s"} did not run: TIDEMARK_TEST_PG_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test; required when CI is set)`;
}

/** Prints `postgresSkipLine` after the summary of the reporters listed before it. */
export default class PostgresSkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = function* () {
      for (const m of testModules) for (const t of m.children.allTests("skipped")) yield t.fullName;
    };
    const line = postgresSkipLine(skipped(), process.env);
    if (line) console.log(line);
  }
}
