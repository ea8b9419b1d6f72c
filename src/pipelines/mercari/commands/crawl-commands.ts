import { type CliServices, type CommandInput, UsageError } from "tidemark";
import { formatTable } from "tidemark/kit";
import { isMercariBlocked, MercariBlockedError } from "../client/types.ts";
import { executeCrawl } from "../jobs/manual-crawl.ts";
import type { ResultView } from "../repos/result-queries.ts";
import { resultsQuery } from "../routes/schemas.ts";
import type { MercariSettings } from "../settings.ts";
import {
  cheapestResults,
  productResults,
  productTrend,
  TREND_NOTE,
} from "../stages/results/result-views.ts";
import { trendBoundMs } from "../stages/results/trend-bounds.ts";
import { parseCount, parseId } from "./cli-values.ts";

/** `tidemark mercari crawl [--product ID] [--json]`: exit 1 saying `blocked` when blocked. */
export async function crawlCommand(
  { options: o }: CommandInput,
  services: CliServices,
): Promise<void> {
  const productId = o.product === undefined ? undefined : parseId(o.product, "--product");
  const pipeline = await services.services<MercariSettings>();
  let outcome: Awaited<ReturnType<typeof executeCrawl>>;
  try {
    outcome = await executeCrawl({ services: pipeline }, productId);
  } catch (err) {
    if (isMercariBlocked(err)) {
      // One line on stderr through the CLI's error path, exit 1.
      throw new MercariBlockedError(
        err.reason,
        `${err.detail}; nothing was deleted, try again later`,
      );
    }
    throw err;
  }
  if (o.json) {
    services.printJson(outcome);
    return;
  }
  if (outcome.products.length === 0) {
    services.print("No enabled product: tidemark mercari product add --name N --keyword K");
    return;
  }
  services.printTable(
    [
      "PRODUCT",
      "RUN",
      "PAGES",
      "FOUND",
      "MERCARI EST.",
      "NO PRICE",
      "NEW",
      "DELETED",
      "EXISTENCE CHECKS",
      "SOLD-DATE CHECKS",
      "SELLER CHECKS",
    ],
    outcome.products.map((s) => [
      s.product_id,
      s.first_run ? "first" : "later",
      s.pages,
      s.found,
      s.num_found_estimate === null ? "" : `~${s.num_found_estimate}`,
      s.no_price,
      s.inserted,
      s.deleted,
      s.existence_checks.enqueued,
      s.sold_out_checks.enqueued,
      s.seller_checks.enqueued,
    ]),
  );
  services.print(
    "Detail checks are queued: run `tidemark worker --drain` (or serve) to process them.",
  );
}

function resultTable(items: readonly ResultView[]): string {
  return formatTable(
    ["ID", "MERCARI ID", "PRICE", "STATUS", "SOLD AT (APPROX.)", "NAME"],
    items.map((r) => [r.id, r.external_id, r.price, r.status, r.sold_out_at, r.name]),
  );
}

/** `tidemark mercari results <productId> [--status] [--limit] [--json]`. */
export async function resultsCommand(input: CommandInput, services: CliServices): Promise<void> {
  const productId = parseId(input.args.productId, "product id");
  const { status, limit } = input.options;
  if (status !== undefined && status !== "on_sale" && status !== "sold") {
    throw new UsageError(`--status must be on_sale or sold, got ${JSON.stringify(status)}`);
  }
  const count = limit === undefined ? 50 : parseCount(limit, "--limit");
  if (count < 1 || count > 500) throw new UsageError(`--limit must be 1-500, got ${count}`);
  // Every option was checked above, so only the query's defaults are left to fill in.
  const query = resultsQuery.parse({ ...(status === undefined ? {} : { status }), limit: count });
  const pipeline = await services.services();
  const page = await productResults(pipeline, productId, query);
  if (input.options.json) {
    services.printJson(page);
    return;
  }
  services.print(resultTable(page.items));
  services.print(`${page.items.length} of ${page.total} listing(s)`);
}

/** `tidemark mercari cheapest <productId> [--limit] [--json]`. */
export async function cheapestCommand(input: CommandInput, services: CliServices): Promise<void> {
  const productId = parseId(input.args.productId, "product id");
  const limit = input.options.limit === undefined ? 10 : parseCount(input.options.limit, "--limit");
  if (limit < 1 || limit > 100) throw new UsageError(`--limit must be 1-100, got ${limit}`);
  const pipeline = await services.services();
  const out = await cheapestResults(pipeline, productId, limit);
  services.print(input.options.json ? JSON.stringify(out, null, 2) : resultTable(out.items));
}

/** A `--from`/`--to` option: a real calendar day (2026-02-31 is refused, not rolled over). */
function dateOption(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(trendBoundMs(text))) {
    throw new UsageError(
      `${option} must be a calendar date like 2026-01-31, got ${JSON.stringify(text)}`,
    );
  }
  return text;
}

/** `tidemark mercari trend <productId> [--from] [--to] [--bucket] [--json]`: a table. */
export async function trendCommand(input: CommandInput, services: CliServices): Promise<void> {
  const productId = parseId(input.args.productId, "product id");
  const o = input.options;
  const from = dateOption(o.from, "--from");
  const to = dateOption(o.to, "--to");
  // Same-shape dates compare as text; an empty window would print "nothing sold".
  if (from !== undefined && to !== undefined && from >= to) {
    throw new UsageError(`--to must be after --from (${from}; --to is exclusive), got ${to}`);
  }
  const bucket = o.bucket ?? "day";
  if (bucket !== "day" && bucket !== "week") {
    throw new UsageError(`--bucket must be day or week, got ${JSON.stringify(bucket)}`);
  }
  const pipeline = await services.services();
  const trend = await productTrend(pipeline, productId, {
    from,
    to,
    bucket,
  });
  if (o.json) {
    services.printJson(trend);
    return;
  }
  const round = (n: number) => Math.round(n);
  services.printTable(
    [bucket === "day" ? "DAY" : "WEEK OF", "SOLD", "MIN", "P25", "MEDIAN", "P75", "MAX"],
    trend.buckets.map((b) => [
      b.bucket,
      b.count,
      b.min,
      round(b.p25),
      round(b.median),
      round(b.p75),
      b.max,
    ]),
  );
  services.print(`${trend.from} – ${trend.to}: ${TREND_NOTE}`);
}
