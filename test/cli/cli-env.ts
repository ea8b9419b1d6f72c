/** CLI suites share one harness for passing the database: `src/testing/cli-env.ts`. */
export { cliEnv } from "../../src/testing/cli-env.ts";
