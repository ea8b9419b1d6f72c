/**
 * `tidemark/testing`: what a pipeline author needs to test a pipeline with Vitest (an optional
 * peer dependency that only this entry uses): the conformance suite every pipeline passes, the
 * dialect matrix (SQLite always, Postgres when TIDEMARK_TEST_PG_URL is set), a clock moved by
 * hand, temp folders removed after each test, a pipeline's services on a fresh migrated
 * database, and the CLI run in-process (with `plugins:` from the test's tidemark.yaml, or with the
 * pipelines given). The list is written by hand (docs/api/testing.md documents each name).
 */

export {
  type DialectHarness,
  describeEachDialect,
  testDialects,
} from "../testing/dialects.ts";
export { ManualClock } from "../testing/manual-clock.ts";
export {
  type ConformanceOptions,
  describePipelineConformance,
} from "../testing/pipeline-conformance.ts";
export { openPipelineServices, runPipelineCli } from "../testing/pipeline-harness.ts";
export { type CliResult, runCli } from "../testing/run-cli.ts";
export { testTempDir } from "../testing/temp-dir.ts";
