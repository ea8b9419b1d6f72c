import type { PanelBlock, PanelModule, PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { ProductRepo } from "../repos/product-repo.ts";
import type { ProductView } from "../repos/product-schemas.ts";
import { ResultQueries } from "../repos/result-queries.ts";
import { priceTrend, trendWindow } from "../stages/results/price-trend.ts";
import type { MercariTables } from "../tables.ts";

/** Products shown (each with its listings and its chart). */
const MAX_PRODUCTS = 10;
/** Cheapest on-sale listings shown per product. */
const CHEAPEST = 5;

const yen = (n: number) => `¥${Math.round(n).toLocaleString("en-US")}`;

/** A product's cheapest on-sale listings (with links and images) and its sold-price trend. */
async function productBlocks(
  services: PipelineServices,
  queries: ResultQueries,
  p: ProductView,
): Promise<PanelBlock[]> {
  const window = trendWindow(services.clock.now());
  const [cheapest, sold] = await Promise.all([
    queries.cheapest(p.id, CHEAPEST),
    queries.soldPrices(p.id, window.from, window.to),
  ]);
  const buckets = priceTrend(sold, "day");
  return [
    {
      kind: "table",
      title: `${p.name}: cheapest on sale`,
      columns: ["Listing", "Price", "Seller"],
      empty: "Nothing on sale found yet.",
      rows: cheapest.map((r) => [
        { text: r.name, href: r.selling_url, image: r.image_url },
        yen(r.price),
        r.seller_type === 2 ? "shop" : "user",
      ]),
    },
    {
      kind: "chart",
      title: `${p.name}: sold prices per day (median, quartile band), last 30 days`,
      time: true,
      x: buckets.map((b) => Date.parse(`${b.bucket}T00:00:00Z`) / 1000),
      series: [
        { label: "25th percentile", values: buckets.map((b) => b.p25) },
        { label: "median", values: buckets.map((b) => b.median) },
        { label: "75th percentile", values: buckets.map((b) => b.p75) },
      ],
      band: { lower: 0, upper: 2 },
      empty: "No sold listing in the last 30 days.",
    },
  ];
}

/** The Mercari panel: per product, the cheapest listings on sale and the sold-price trend. */
export const mercariPanel: PanelModule = {
  async view({ services }) {
    // The view's repositories, built once for every product it shows.
    const db = typed<MercariTables>(services.db);
    const queries = new ResultQueries(db);
    const products = await new ProductRepo(db).list();
    const shown = products.slice(0, MAX_PRODUCTS);
    const blocks: PanelBlock[] = [
      {
        kind: "stats",
        items: [
          { label: "products", value: products.length },
          { label: "crawled (enabled)", value: products.filter((p) => p.enabled).length },
        ],
      },
    ];
    if (products.length === 0) {
      blocks.push({
        kind: "note",
        text: "No product yet: add one with tidemark mercari product add.",
      });
    }
    for (const p of shown) blocks.push(...(await productBlocks(services, queries, p)));
    if (products.length > shown.length) {
      blocks.push({
        kind: "note",
        text: `${products.length - shown.length} more product(s) not shown.`,
      });
    }
    return { blocks };
  },
};
