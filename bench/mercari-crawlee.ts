// Child process of bench/mercari.ts: Crawlee (BasicCrawler and its request queue) doing the
// same work as Tidemark's first crawl of a product: every search page, newest first, one after
// the other (each needs the previous page's token), then the detail of every sold listing
// found (Tidemark's sold-date sync), `concurrency` requests at a time. Same HTTP stack (fetch),
// same DPoP proofs. Prints one JSON line: wall time, requests, lost and duplicate counts.
//
//   tsx bench/mercari-crawlee.ts <fakeUrl> <keyword> <concurrency> <pageSize> <storageDir>
import { BasicCrawler, Configuration, log } from "crawlee";
import { processDpopSigner } from "../src/pipelines/mercari/client/dpop.ts";
import { buildSearchBody } from "../src/pipelines/mercari/client/search-body.ts";
import { isShopsId } from "../src/pipelines/mercari/client/types.ts";

const [base = "", keyword = "", concurrencyArg = "5", pageSizeArg = "120", storageDir = ""] =
  process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const pageSize = Number(pageSizeArg);
process.env.CRAWLEE_STORAGE_DIR = storageDir;
log.setLevel(log.LEVELS.WARNING);

const signer = await processDpopSigner();
const searchUrl = `${base}/v2/entities:search`;

interface Found {
  id: string;
  status: string;
}
const listed = new Map<string, Found>();
const detailed = new Map<string, number>();
let searchPages = 0;

async function call(method: "GET" | "POST", url: string, body?: string): Promise<unknown> {
  const response = await fetch(url, {
    method,
    body,
    headers: {
      "x-platform": "web",
      accept: "application/json",
      dpop: await signer.proof(method, url),
      ...(body ? { "content-type": "application/json" } : {}),
    },
  });
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${method} ${url}: HTTP ${response.status}`);
  return JSON.parse(text);
}

function detailUrl(id: string): string {
  return isShopsId(id)
    ? `${base}/v1/marketplaces/shops/products/${id}?view=FULL&imageType=JPEG`
    : `${base}/items/get?id=${id}`;
}

const config = new Configuration({ persistStorage: false, purgeOnStart: true });
const crawler: BasicCrawler = new BasicCrawler(
  {
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    autoscaledPoolOptions: { desiredConcurrency: concurrency },
    maxRequestRetries: 3,
    requestHandlerTimeoutSecs: 60,
    async requestHandler({ request }) {
      const data = request.userData as { kind: "search" | "detail"; token?: string; id?: string };
      if (data.kind === "detail") {
        await call("GET", detailUrl(data.id ?? ""));
        detailed.set(data.id ?? "", (detailed.get(data.id ?? "") ?? 0) + 1);
        return;
      }
      const body = buildSearchBody(
        { keyword, pageToken: data.token ?? "", pageSize },
        pageSize,
        "bench",
      );
      const page = (await call("POST", searchUrl, JSON.stringify(body))) as {
        items: Array<{ id: string; status: string }>;
        meta: { nextPageToken: string };
      };
      searchPages++;
      for (const item of page.items) listed.set(item.id, { id: item.id, status: item.status });
      const next = page.meta.nextPageToken;
      if (next !== "") {
        await crawler.addRequests([
          {
            url: `${searchUrl}#${next}`,
            uniqueKey: `search:${next}`,
            userData: { kind: "search", token: next },
          },
        ]);
        return;
      }
      // Like Tidemark's sold-date sync: once the search is read, the sold listings' details.
      const sold = [...listed.values()].filter((f) => f.status !== "ITEM_STATUS_ON_SALE");
      await crawler.addRequests(
        sold.map((f) => ({
          url: detailUrl(f.id),
          uniqueKey: `detail:${f.id}`,
          userData: { kind: "detail", id: f.id },
        })),
      );
    },
  },
  config,
);

const started = performance.now();
await crawler.run([
  { url: `${searchUrl}#first`, uniqueKey: "search:", userData: { kind: "search", token: "" } },
]);
const wallMs = performance.now() - started;
const soldIds = [...listed.values()]
  .filter((f) => f.status !== "ITEM_STATUS_ON_SALE")
  .map((f) => f.id);
const lostDetails = soldIds.filter((id) => !detailed.has(id)).length;
const duplicateDetails = [...detailed.values()].filter((n) => n > 1).length;
process.stdout.write(
  `${JSON.stringify({
    wallMs,
    searchPages,
    listed: listed.size,
    details: detailed.size,
    lostDetails,
    duplicateDetails,
  })}\n`,
);
