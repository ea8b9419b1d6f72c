// One process of the Rakuten shared-limit test: a RakutenClient whose limiter is a
// SharedRateLimiter on the test's database. Run: node --import tsx rakuten-client-child.ts
// '<json plan>'. Prints "ready", starts on a "go" line on stdin, prints one JSON line
// `{ "stats": …, "failures": n }` when done.

import { once } from "node:events";
import { SharedRateLimiter } from "../../../src/engine/rate-limit/shared-rate-limiter.ts";
import type { DatabaseTarget } from "../../../src/infra/config/load-config.ts";
import { openDatabase } from "../../../src/infra/db/open-database.ts";
import { silentLogger } from "../../../src/infra/logging/logger.ts";
import { readRakutenCredentials } from "../../../src/pipelines/rakuten/client/credentials.ts";
import { RakutenClient } from "../../../src/pipelines/rakuten/client/rakuten-client.ts";
import { rakutenSettingsOf } from "./settings.ts";

/** What the child does: `item` searches the codes, `ranking` reads genre 0 `calls` times. */
export interface RakutenChildPlan {
  target: DatabaseTarget;
  url: string;
  job: "item" | "ranking";
  itemCodes: string[];
  calls: number;
}

const plan = JSON.parse(process.argv[2] ?? "{}") as RakutenChildPlan;
const db = await openDatabase(plan.target);
const settings = rakutenSettingsOf({ base_url: plan.url, use_env: false });
const client = new RakutenClient({
  settings,
  credentials: readRakutenCredentials(settings, {
    RAKUTEN_APPLICATION_ID: "shared-app-id",
    RAKUTEN_ACCESS_KEY: "k",
  }),
  logger: silentLogger(),
  limiter: new SharedRateLimiter(db),
});

process.stdout.write("ready\n");
process.stdin.setEncoding("utf8");
await once(process.stdin, "data");
let failures = 0;
// Two calls in flight at once, as a job with concurrency would have.
let next = 0;
await Promise.all(
  [0, 1].map(async () => {
    while (next < plan.calls) {
      const k = next++;
      try {
        if (plan.job === "item") await client.searchItemByCode(plan.itemCodes[k] ?? "");
        else await client.ranking(0);
      } catch {
        failures++;
      }
    }
  }),
);
await db.close();
process.stdout.write(`${JSON.stringify({ stats: client.stats, failures })}\n`);
