import { z } from "zod";
import { type FakeAnswer, type FakeRequest, json } from "./fake-bodies.ts";
import type { RakutenApiFake } from "./rakuten-api-fake.ts";

/** What `POST /_fake/knobs` accepts: some of the knobs (documented in docs/pipelines/rakuten.md). */
export const knobsPatch = z.strictObject({
  rateLimit: z.boolean().optional(),
  requestsPerSecond: z.number().positive().optional(),
  toleranceMs: z.number().min(0).optional(),
  maintenance: z.boolean().optional(),
  burst429: z.number().int().min(0).optional(),
  malformed: z.number().int().min(0).optional(),
  wrongTypes: z.number().int().min(0).optional(),
  wrongShape: z.number().int().min(0).optional(),
  errorShape: z.enum(["host", "old", "new"]).optional(),
  zeroItems: z.enum(["empty", "absent"]).optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  requireAccessKey: z.boolean().optional(),
});

const change = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("price"), itemCode: z.string(), price: z.number().int().min(0) }),
  z.strictObject({
    op: z.literal("review"),
    itemCode: z.string(),
    rating: z.number().min(1).max(5),
  }),
  z.strictObject({ op: z.literal("reorder-images"), itemCode: z.string() }),
  z.strictObject({ op: z.literal("remove"), itemCode: z.string() }),
  z.strictObject({ op: z.literal("restore"), itemCode: z.string() }),
  z.strictObject({ op: z.literal("rename-genre"), genreId: z.number().int(), name: z.string() }),
  z.strictObject({ op: z.literal("rename-tag"), tagId: z.number().int(), name: z.string() }),
]);

async function body(request: FakeRequest): Promise<unknown> {
  const text = await request.text();
  return text === "" ? {} : JSON.parse(text);
}

/** Applies one catalogue change; returns the item when there is one. */
function applyChange(fake: RakutenApiFake, c: z.output<typeof change>): unknown {
  const cat = fake.catalogue;
  switch (c.op) {
    case "price":
      return cat.setPrice(c.itemCode, c.price);
    case "review":
      return cat.addReview(c.itemCode, c.rating);
    case "reorder-images":
      return cat.reorderImages(c.itemCode);
    case "remove":
      cat.removeItem(c.itemCode);
      return { removed: c.itemCode };
    case "restore":
      cat.restoreItem(c.itemCode);
      return cat.item(c.itemCode) ?? null;
    case "rename-genre":
      cat.renameGenre(c.genreId, c.name);
      return { genreId: c.genreId, name: c.name };
    case "rename-tag":
      cat.renameTag(c.tagId, c.name);
      return { tagId: c.tagId, name: c.name };
  }
}

/**
 * Control endpoints: `GET /_fake/stats`, `POST /_fake/stats/reset`, `GET|POST /_fake/knobs`,
 * `GET /_fake/items?limit=N` (item codes), `GET /_fake/rankings/<genreId>` (ranked item codes),
 * `POST /_fake/change` with `{op: price|review|reorder-images|remove|restore|rename-genre|
 * rename-tag, …}`.
 */
export async function handleControl(
  fake: RakutenApiFake,
  request: FakeRequest,
): Promise<FakeAnswer> {
  const url = request.url;
  const path = url.pathname;
  const post = request.method === "POST";
  try {
    if (path === "/_fake/stats" && !post) return json(fake.stats);
    if (path === "/_fake/stats/reset" && post) {
      fake.resetStats();
      return json(fake.stats);
    }
    if (path === "/_fake/knobs") {
      return json(post ? fake.setKnobs(knobsPatch.parse(await body(request))) : fake.knobs);
    }
    if (path === "/_fake/items" && !post) {
      const limit = Number(url.searchParams.get("limit") ?? fake.catalogue.size);
      return json({ itemCodes: fake.catalogue.itemCodes(limit) });
    }
    const ranking = /^\/_fake\/rankings\/(\d+)$/.exec(path);
    if (ranking && !post) {
      const cat = fake.catalogue;
      const codes = cat
        .rankedIndexes(Number(ranking[1]))
        .slice(0, 30)
        .map((i) => cat.codeAt(i));
      return json({ itemCodes: codes });
    }
    if (path === "/_fake/change" && post) {
      return json(applyChange(fake, change.parse(await body(request))));
    }
  } catch (err) {
    const message = err instanceof z.ZodError ? z.prettifyError(err) : String(err);
    return json({ error: message }, 400);
  }
  return json({ error: `no control endpoint ${request.method} ${path}` }, 404);
}
