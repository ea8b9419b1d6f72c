import type { Kysely } from "kysely";
import { type CliServices, NotFoundError } from "tidemark";
import { typed } from "tidemark/kit";
import { EmbeddingScanRepo, type StoredEmbedding } from "../repos/embedding-scan-repo.ts";
import { StoredItemRepo } from "../repos/stored-item-repo.ts";
import { cosineSimilarity, parseVector } from "../stages/embeddings/cosine.ts";
import type { RakutenTables } from "../tables.ts";

/** Embeddings scanned per query: memory stays flat however many items there are. */
const SCAN_PAGE = 2000;

/** One neighbour of `rakuten similar`. */
export interface SimilarItem {
  rank: number;
  item_code: string;
  similarity: number;
  item_name: string | null;
  item_price: number | null;
}

/** What `rakuten similar` found. */
export interface SimilarResult {
  item_code: string;
  item_name: string | null;
  model: string;
  /** `lexical` for the built-in local model, else `semantic`. */
  kind: "lexical" | "semantic";
  compared: number;
  items: SimilarItem[];
}

/**
 * The `k` items whose embeddings (same model and length as the item's) have the highest
 * cosine similarity to the item's. A NotFoundError (exit 2) when the item is unknown or not
 * embedded yet.
 */
export async function findSimilar(
  db: Kysely<RakutenTables>,
  itemCode: string,
  k: number,
): Promise<SimilarResult> {
  // Built once for the whole search and passed down.
  const items = new StoredItemRepo(db);
  const embeddings = new EmbeddingScanRepo(db);
  const item = await items.label(itemCode);
  const own = await embeddings.embeddingOf(itemCode);
  if (own === undefined) {
    throw new NotFoundError(
      item === undefined
        ? `unknown item ${JSON.stringify(itemCode)}: no such item code in apl.item`
        : `item ${itemCode} has no embedding yet: run the rakuten.embedding-source and rakuten.embedding jobs`,
    );
  }
  const { best, compared } = await scanNearest(embeddings, own, itemCode, k);
  const names = await items.labels(best.map((b) => b.code));
  return {
    item_code: itemCode,
    item_name: item?.item_name ?? null,
    model: own.model,
    kind: own.model.startsWith("local-") ? "lexical" : "semantic",
    compared,
    items: best.map((b, i) => ({
      rank: i + 1,
      item_code: b.code,
      similarity: Number(b.similarity.toFixed(6)),
      item_name: names.get(b.code)?.item_name ?? null,
      item_price: names.get(b.code)?.item_price ?? null,
    })),
  };
}

/** Scans the embeddings of the item's model and length page by page, keeping the best `k`. */
async function scanNearest(
  embeddings: EmbeddingScanRepo,
  own: StoredEmbedding,
  itemCode: string,
  k: number,
): Promise<{ best: Array<{ code: string; similarity: number }>; compared: number }> {
  const target = parseVector(own.vector);
  const best: Array<{ code: string; similarity: number }> = [];
  let compared = 0;
  let after = "";
  for (;;) {
    const page = await embeddings.page(own, after, SCAN_PAGE);
    if (page.length === 0) return { best, compared };
    after = page[page.length - 1]!.item_code;
    for (const row of page) {
      if (row.item_code === itemCode) continue;
      compared++;
      const similarity = cosineSimilarity(target, parseVector(row.vector));
      keepBest(best, k, { code: row.item_code, similarity });
    }
  }
}

/** Inserts `c` into the descending top-`k` list (ties by item code, for a stable order). */
function keepBest(
  best: Array<{ code: string; similarity: number }>,
  k: number,
  c: { code: string; similarity: number },
): void {
  if (best.length === k && c.similarity <= best[k - 1]!.similarity) return;
  let i = best.length;
  while (i > 0 && best[i - 1]!.similarity < c.similarity) i--;
  best.splice(i, 0, c);
  if (best.length > k) best.pop();
}

/** `tidemark rakuten similar <itemCode> [-k 10] [--json]`. */
export async function similarItemsCommand(
  services: CliServices,
  itemCode: string,
  opts: { k: number; json: boolean },
): Promise<void> {
  const { db } = await services.services();
  const result = await findSimilar(typed<RakutenTables>(db), itemCode, opts.k);
  if (opts.json) {
    services.printJson(result);
    return;
  }
  const note =
    result.kind === "lexical"
      ? " (lexical: shared character sequences of the texts, not meaning)"
      : "";
  services.print(
    `Nearest to ${itemCode}${result.item_name ? ` ${result.item_name}` : ""} by cosine similarity, model ${result.model}${note}; ${result.compared} items compared`,
  );
  if (result.items.length === 0) {
    services.print("no other item has an embedding of this model yet");
    return;
  }
  services.printTable(
    ["rank", "similarity", "item_code", "price", "name"],
    result.items.map((i) => [
      i.rank,
      i.similarity.toFixed(4),
      i.item_code,
      i.item_price,
      i.item_name,
    ]),
  );
}
