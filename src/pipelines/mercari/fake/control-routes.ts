import { z } from "zod";
import type { FakeListing } from "./listing.ts";
import type { MercariFake } from "./mercari-fake.ts";

const knobsSchema = z.strictObject({
  block: z.enum(["off", "empty", "forbidden", "html"]).optional(),
  latencyMs: z.number().int().min(0).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  rateLimitRate: z.number().min(0).max(1).optional(),
  malformedRate: z.number().min(0).max(1).optional(),
  verifyDpop: z.boolean().optional(),
  shortPages: z.boolean().optional(),
  gateway404: z.boolean().optional(),
  repeatPageToken: z.boolean().optional(),
});

const advanceSchema = z.strictObject({
  ms: z.number().int().min(0).optional(),
  hours: z.number().min(0).optional(),
});

const groupSchema = z.strictObject({
  keyword: z.string().min(1),
  count: z.number().int().min(0).max(1_000_000),
  categoryId: z.number().int().optional(),
  priceMin: z.number().int().min(1).optional(),
  priceMax: z.number().int().min(1).optional(),
  shopShare: z.number().min(0).max(1).optional(),
  soldShare: z.number().min(0).max(1).optional(),
  descriptionOnlyShare: z.number().min(0).max(1).optional(),
});

const listSchema = z.strictObject({
  keyword: z.string().min(1),
  name: z.string().min(1).optional(),
  price: z.number().int().min(1).optional(),
  shop: z.boolean().optional(),
  categoryId: z.number().int().optional(),
});

const changeSchema = z.strictObject({
  price: z.number().int().min(1).optional(),
  noPrice: z.boolean().optional(),
  name: z.string().min(1).optional(),
  status: z.enum(["trading", "sold_out"]).optional(),
});

function reply(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function view(l: FakeListing): Record<string, unknown> {
  const { searchText: _searchText, ...rest } = l;
  return rest;
}

/** Counts of live listings by status, the clock and the knobs. */
export function fakeState(fake: MercariFake): Record<string, unknown> {
  const counts = { on_sale: 0, trading: 0, sold_out: 0 };
  for (const l of fake.catalogue.all()) counts[l.status]++;
  return {
    now: fake.catalogue.now().toISOString(),
    counts,
    knobs: fake.knobs,
    stats: fake.stats,
  };
}

/** Detail requests: total, distinct ids, and the ids asked for more than once. */
export function detailCounts(fake: MercariFake): Record<string, unknown> {
  let total = 0;
  const repeated: string[] = [];
  for (const [id, n] of fake.detailRequests) {
    total += n;
    if (n > 1) repeated.push(id);
  }
  return { total, distinct: fake.detailRequests.size, repeated };
}

async function bodyOf<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const text = await request.text();
  return schema.parse(text === "" ? {} : JSON.parse(text));
}

/**
 * The fake's control API (no DPoP): `GET /_fake/state`, `GET /_fake/detail-counts`, `POST /_fake/advance {ms|hours}`,
 * `POST /_fake/knobs`, `POST /_fake/groups`, `POST /_fake/items` (list one),
 * `POST /_fake/items/{id} {price?, status?}`, `DELETE /_fake/items/{id}`.
 */
export async function handleControl(fake: MercariFake, request: Request, url: URL) {
  const path = url.pathname.slice("/_fake".length);
  const method = request.method;
  const cat = fake.catalogue;
  try {
    if (path === "/state" && method === "GET") return reply(fakeState(fake));
    if (path === "/detail-counts" && method === "GET") return reply(detailCounts(fake));
    if (path === "/advance" && method === "POST") {
      const b = await bodyOf(request, advanceSchema);
      const report = cat.advance((b.ms ?? 0) + Math.round((b.hours ?? 0) * 3_600_000));
      return reply({ now: cat.now().toISOString(), ...report });
    }
    if (path === "/knobs" && method === "POST") {
      Object.assign(fake.knobs, await bodyOf(request, knobsSchema));
      return reply(fake.knobs);
    }
    if (path === "/groups" && method === "POST") {
      const added = cat.addGroup(await bodyOf(request, groupSchema));
      return reply({ added: added.length });
    }
    if (path === "/items" && method === "POST") {
      const b = await bodyOf(request, listSchema);
      return reply(view(cat.list(b.keyword, b)), 201);
    }
    const m = /^\/items\/([^/]+)$/.exec(path);
    const listing = m ? cat.get(decodeURIComponent(m[1] ?? "")) : undefined;
    if (m && !listing) return reply({ error: "no such listing" }, 404);
    if (listing && method === "DELETE") {
      cat.remove(listing.id);
      return reply({ deleted: listing.id });
    }
    if (listing && method === "POST") {
      const b = await bodyOf(request, changeSchema);
      if (b.price !== undefined) cat.setPrice(listing.id, b.price);
      if (b.noPrice !== undefined) cat.setNoPrice(listing.id, b.noPrice);
      if (b.name !== undefined) cat.rename(listing.id, b.name);
      if (b.status !== undefined) cat.sell(listing.id, b.status);
      return reply(view(listing));
    }
    return reply({ error: `no control route ${method} ${url.pathname}` }, 404);
  } catch (err) {
    return reply({ error: err instanceof Error ? err.message : String(err) }, 400);
  }
}
