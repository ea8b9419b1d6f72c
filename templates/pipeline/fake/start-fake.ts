import type { FakeOptions, RunningFake } from "tidemark";
import { startStarterKitFake } from "./starter-kit-fake.ts";

/** `tidemark fake starter-kit`: the fake in the foreground, with what to try against it. */
export async function startStandaloneFake(options: FakeOptions): Promise<RunningFake> {
  const fake = await startStarterKitFake({ port: options.port, host: options.host });
  options.print(`fake Starter Kit API at ${fake.url}: ${fake.records.length} records`);
  return {
    env: {
      TIDEMARK_STARTER_KIT_URL: fake.url,
      TIDEMARK_STARTER_KIT_REQUESTS_PER_SECOND: "1000",
    },
    hints: [
      "tidemark db migrate && tidemark job add records --type starter-kit.sync && tidemark run records",
      `curl -X POST '${fake.url}/_fake/touch?count=3'   # then run again: 3 changed, the rest skipped`,
      `curl -X POST '${fake.url}/_fake/fault?kind=wrong-shape'   # a run fails; the cursor stays`,
    ],
    close: () => fake.close(),
  };
}
