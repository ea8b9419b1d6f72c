import type { FakeOptions, RunningFake } from "tidemark";
import { startRegistryFake } from "./registry-fake.ts";

/** `tidemark fake registry-feed`: the fake registry in the foreground. */
export async function startStandaloneFake(options: FakeOptions): Promise<RunningFake> {
  const fake = await startRegistryFake({ port: options.port, host: options.host });
  const { catalogue } = fake;
  options.print(
    `fake registry at ${fake.url}: ${catalogue.packages.size} packages, ${catalogue.lastSeq} changes`,
  );
  return {
    env: {
      TIDEMARK_REGISTRY_FEED_URL: fake.url,
      TIDEMARK_REGISTRY_FEED_REQUESTS_PER_SECOND: "1000",
    },
    hints: [
      "tidemark db migrate && tidemark job add registry --type registry-feed.follow && tidemark run registry",
      `curl -X POST '${fake.url}/_fake/publish?name=left-pad&version=2.0.0'   # then run again`,
      `curl -X POST '${fake.url}/_fake/fault?kind=wrong-shape'   # a run fails; the cursor stays`,
    ],
    close: () => fake.close(),
  };
}
