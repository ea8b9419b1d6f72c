// One process of the shared rate-limit test: hammers a URL through an HttpClient whose
// sharedLimit is a SharedRateLimiter on the test's database, stamping each request as it is
// sent. Run: node --import tsx rate-limit-child.ts '<json plan>'. Prints "ready", starts on a
// "go" line on stdin, and prints one JSON line `{ "stamps": [ms…], "transactions": n }` when
// done (the limiter's transactions, counted by their one insert each).

import { once } from "node:events";
import type { KyselyPlugin } from "kysely";
import { HttpClient } from "../engine/http/http-client.ts";
import { SharedRateLimiter } from "../engine/rate-limit/shared-rate-limiter.ts";
import type { DatabaseTarget } from "../infra/config/load-config.ts";
import { openDatabase } from "../infra/db/open-database.ts";
import { silentLogger } from "../infra/logging/logger.ts";

/** What the child does. */
export interface RateLimitChildPlan {
  target: DatabaseTarget;
  url: string;
  key: string;
  ratePerSecond: number;
  burst: number;
  durationMs: number;
  /** Request loops running at once in this process. */
  loops: number;
}

const plan = JSON.parse(process.argv[2] ?? "{}") as RateLimitChildPlan;
const db = await openDatabase(plan.target);
const stamps: number[] = [];
let transactions = 0;
const counter: KyselyPlugin = {
  transformQuery: (args) => {
    if (args.node.kind === "InsertQueryNode") transactions++;
    return args.node;
  },
  transformResult: async (args) => args.result,
};
const client = new HttpClient({
  logger: silentLogger(),
  userAgent: "tidemark-rate-limit-child",
  retry: { maxAttempts: 1 },
  sharedLimit: {
    limiter: new SharedRateLimiter({ ...db, kysely: db.kysely.withPlugin(counter) }),
    key: plan.key,
    ratePerSecond: plan.ratePerSecond,
    burst: plan.burst,
  },
  fetch: (input, init) => {
    stamps.push(Date.now());
    return fetch(input, init);
  },
});

process.stdout.write("ready\n");
process.stdin.setEncoding("utf8");
await once(process.stdin, "data");
const end = Date.now() + plan.durationMs;
await Promise.all(
  Array.from({ length: plan.loops }, async () => {
    while (Date.now() < end) await client.request(plan.url);
  }),
);
await db.close();
process.stdout.write(`${JSON.stringify({ stamps, transactions })}\n`);
