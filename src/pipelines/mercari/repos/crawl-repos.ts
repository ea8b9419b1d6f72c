import type { Kysely } from "kysely";
import type { Clock } from "tidemark";
import type { MercariTables } from "../tables.ts";
import { CrawlResultRepo } from "./crawl-result-repo.ts";
import { FirstCrawlMarks } from "./first-crawl-marks.ts";
import { ProductRepo } from "./product-repo.ts";

/** The repositories a crawl reads and writes through. */
export interface CrawlRepos {
  readonly products: ProductRepo;
  readonly results: CrawlResultRepo;
  readonly firstCrawl: FirstCrawlMarks;
}

/**
 * The crawl's repositories on `db`: built once per run or message (the crawl context), and
 * once per fenced transaction of the page writer, bound to that transaction.
 */
export function crawlRepos(db: Kysely<MercariTables>, clock: Clock): CrawlRepos {
  return {
    products: new ProductRepo(db),
    results: new CrawlResultRepo(db),
    firstCrawl: new FirstCrawlMarks(db, clock),
  };
}
