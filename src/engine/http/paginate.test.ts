import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../infra/logging/logger.ts";
import { type FakeServer, startFakeServer } from "../fakes/fake-server.ts";
import { HttpClient } from "./http-client.ts";
import { BadPayloadError } from "./http-errors.ts";
import { nextLinkFromHeader } from "./link-header.ts";
import {
  type Page,
  PaginationError,
  paginateByNextUrl,
  paginateByOffset,
  paginateByToken,
} from "./paginate.ts";

/** 23 items; the offset API returns short pages in the middle (as filtering APIs do). */
const ITEMS = Array.from({ length: 23 }, (_, i) => `item-${i}`);
const PAGE = 5;
const tokenOf = (start: number) => `t${start}`;

let loopToken = false;
let otherOrigin = "";

const app = (req: Request): Response => {
  const url = new URL(req.url);
  const q = url.searchParams;
  if (url.pathname === "/tokens") {
    const start = q.has("pageToken") ? Number(q.get("pageToken")!.slice(1)) : 0;
    // A proxy answering `{}` from the third page on.
    if (q.has("emptyFrom") && start >= Number(q.get("emptyFrom"))) return Response.json({});
    const end = Math.min(ITEMS.length, start + PAGE);
    // With loopToken the source goes back from page 3 to page 2 (a broken API).
    const next = end < ITEMS.length ? tokenOf(loopToken && start >= 10 ? 5 : end) : undefined;
    return Response.json({ items: ITEMS.slice(start, end), nextPageToken: next });
  }
  if (url.pathname === "/offset") {
    const start = Number(q.get("startIndex"));
    const size = Number(q.get("maxResults"));
    // Past the end the source answers its documented empty shape, or (`pastEnd`) something else.
    if (start >= ITEMS.length) {
      const pastEnd = q.get("pastEnd");
      return pastEnd ? new Response(pastEnd, { headers: JSON_TYPE }) : Response.json(EMPTY_ANSWER);
    }
    // Page 5..9 comes back short: the source filtered two items out.
    const items = ITEMS.slice(start, start + size).filter((_, i) => start !== 5 || i < 3);
    return Response.json({ totalItems: q.has("noTotal") ? undefined : ITEMS.length, items });
  }
  if (url.pathname === "/links") {
    const page = Number(q.get("page") ?? "0");
    const items = ITEMS.slice(page * PAGE, page * PAGE + PAGE);
    const hasNext = (page + 1) * PAGE < ITEMS.length;
    if (q.get("style") === "header") {
      const headers = new Headers();
      if (hasNext) {
        headers.set(
          "link",
          `<${url.pathname}?style=header&page=${page + 1}>; rel="next", </links?page=0>; rel="first"`,
        );
      }
      return Response.json({ items }, { headers });
    }
    const next = otherOrigin
      ? `${otherOrigin}/links?page=${page + 1}`
      : hasNext
        ? `links?page=${page + 1}`
        : null;
    return Response.json({ items, next });
  }
  return new Response("not found", { status: 404 });
};

const JSON_TYPE = { "content-type": "application/json" };
/** The offset source's documented answer past the end: no `items`, totalItems 0. */
const EMPTY_ANSWER = { totalItems: 0 };

const TokenPage = z.object({ items: z.array(z.string()), nextPageToken: z.string().optional() });
const OffsetPage = z.object({
  items: z.array(z.string()).optional(),
  totalItems: z.number().optional(),
});
const LinkPage = z.object({ items: z.array(z.string()), next: z.string().nullable().optional() });

let server: FakeServer;
let client: HttpClient;
beforeAll(async () => {
  server = await startFakeServer(app);
  client = new HttpClient({
    baseUrl: server.url,
    logger: silentLogger(),
    userAgent: "t",
    retry: { maxAttempts: 2, baseDelayMs: 1 },
  });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.reset();
  loopToken = false;
  otherOrigin = "";
});

async function collect<T, P>(pages: AsyncIterable<Page<T, P>>): Promise<Page<T, P>[]> {
  const out: Page<T, P>[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const tokenPaging = {
  schema: TokenPage,
  request: (token: string | undefined) => ({
    target: "/tokens",
    query: { pageToken: token, pageSize: PAGE },
  }),
  nextToken: (page: z.output<typeof TokenPage>) => page.nextPageToken,
};

describe("paginateByToken", () => {
  it("follows the token until the source has none, reporting each page's position", async () => {
    const pages = await collect(paginateByToken(client, tokenPaging));
    expect(pages.flatMap((p) => p.data.items)).toEqual(ITEMS);
    expect(pages.map((p) => [p.position, p.next, p.done])).toEqual([
      [undefined, "t5", false],
      ["t5", "t10", false],
      ["t10", "t15", false],
      ["t15", "t20", false],
      ["t20", undefined, true],
    ]);
    expect(server.requests.map((r) => r.query.pageToken)).toEqual([
      undefined,
      "t5",
      "t10",
      "t15",
      "t20",
    ]);
  });

  it("stops at maxPages and resumes from the persisted next", async () => {
    const first = await collect(paginateByToken(client, { ...tokenPaging, maxPages: 2 }));
    expect(first).toHaveLength(2);
    const cursor = first.at(-1)!.next;
    expect(cursor).toBe("t10");
    const rest = await collect(paginateByToken(client, { ...tokenPaging, start: cursor }));
    expect([...first, ...rest].flatMap((p) => p.data.items)).toEqual(ITEMS);
    expect(rest[0]!.index).toBe(0);
  });

  it("refuses a page schema that accepts {} unless the empty answer is declared", () => {
    const Loose = TokenPage.extend({ items: z.array(z.string()).optional() });
    expect(() => paginateByToken(client, { ...tokenPaging, schema: Loose })).toThrow(
      /page schema accepts \{\}.*isEmptyAnswer/,
    );
    expect(() =>
      paginateByNextUrl(client, {
        schema: z.object({ next: z.string().optional() }),
        first: { target: "/links" },
        nextUrl: (page) => page.next,
      }),
    ).toThrow(TypeError);
  });

  it("fails on a last page without items that is not the documented empty answer", async () => {
    const Loose = TokenPage.extend({ items: z.array(z.string()).optional() });
    const seen: unknown[] = [];
    const err = await (async () => {
      for await (const page of paginateByToken(client, {
        schema: Loose,
        request: (token) => ({
          target: "/tokens",
          query: { pageToken: token, pageSize: PAGE, emptyFrom: 10 },
        }),
        nextToken: (page) => page.nextPageToken,
        itemCount: (page) => page.items?.length ?? 0,
        isEmptyAnswer: (page) => page.items !== undefined && page.items.length === 0,
      })) {
        seen.push(page.position);
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadPayloadError);
    expect((err as BadPayloadError).message).toMatch(/^GET .*\/tokens\?pageToken=t10&/);
    expect((err as BadPayloadError).message).toContain("not the source's documented empty answer");
    expect(seen).toEqual([undefined, "t5"]);
  });

  it("fails instead of looping when the source repeats a token", async () => {
    loopToken = true;
    const err = await collect(paginateByToken(client, tokenPaging)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect((err as Error).message).toMatch(/page token repeated at page 3$/);
    expect(server.requests).toHaveLength(3);
  });
});

const offsetPaging = {
  schema: OffsetPage,
  pageSize: PAGE,
  request: (offset: number, size: number) => ({
    target: "/offset",
    query: { startIndex: offset, maxResults: size },
  }),
  itemCount: (page: z.output<typeof OffsetPage>) => page.items?.length ?? 0,
  total: (page: z.output<typeof OffsetPage>) => page.totalItems,
  isEmptyAnswer: (page: z.output<typeof OffsetPage>) =>
    page.items === undefined && page.totalItems === 0,
};

/** Offset paging without a total, whose page past the end is `pastEnd` (default: documented). */
function pagingPastEnd(pastEnd?: string, method?: string) {
  return {
    ...offsetPaging,
    total: undefined,
    request: (offset: number, size: number) => ({
      target: "/offset",
      method,
      query: { startIndex: offset, maxResults: size, noTotal: 1, pastEnd },
    }),
  };
}

describe("paginateByOffset", () => {
  it("does not stop on a short page, and stops when the total is reached", async () => {
    const pages = await collect(paginateByOffset(client, offsetPaging));
    expect(pages.map((p) => [p.position, p.data.items?.length, p.next])).toEqual([
      [0, 5, 5],
      [5, 3, 10],
      [10, 5, 15],
      [15, 5, 20],
      [20, 3, undefined],
    ]);
    // No request past the total.
    expect(server.requests).toHaveLength(5);
  });

  it("without a total, stops on the source's documented empty answer", async () => {
    const pages = await collect(paginateByOffset(client, pagingPastEnd()));
    expect(pages.map((p) => p.position)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(pages.at(-1)).toMatchObject({ done: true, next: undefined, data: EMPTY_ANSWER });
  });

  it("fails on a page without items that is not the documented empty answer, naming the request", async () => {
    for (const pastEnd of [
      "{}",
      '{"items":[]}',
      '{"totalItems":23}',
      '{"items":[],"totalItems":0}',
    ]) {
      server.reset();
      const seen: number[] = [];
      const err = await (async () => {
        for await (const page of paginateByOffset(client, pagingPastEnd(pastEnd))) {
          seen.push(page.position);
        }
      })().catch((e: unknown) => e);
      expect(err, pastEnd).toBeInstanceOf(BadPayloadError);
      const bad = err as BadPayloadError;
      expect(bad.kind).toBe("schema");
      expect(bad.field).toBe("(root)");
      expect(bad.message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/offset\?startIndex=25&/);
      expect(bad.message).toContain("not the source's documented empty answer");
      // The pages before it were yielded; the bad one was not, so no cursor can move past it.
      expect(seen).toEqual([0, 5, 10, 15, 20]);
    }
  });

  it("names the method and the first failing field when a page has the wrong shape", async () => {
    const err = await collect(paginateByOffset(client, pagingPastEnd('{"items":"none"}', "post")))
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadPayloadError);
    const bad = err as BadPayloadError;
    expect(bad.field).toBe("items");
    expect(bad.method).toBe("POST");
    expect(bad.message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/offset\?.* items: /);
  });

  it("applies the caller's stop rule and advance mode, and resumes from an offset", async () => {
    const shortEnds = await collect(
      paginateByOffset(client, { ...offsetPaging, stop: (_page, at) => at.itemCount < PAGE }),
    );
    expect(shortEnds.map((p) => p.position)).toEqual([0, 5]);
    server.reset();
    const byItems = await collect(
      paginateByOffset(client, { ...offsetPaging, advance: "itemCount", start: 15 }),
    );
    expect(byItems.map((p) => [p.position, p.next])).toEqual([
      [15, 20],
      [20, undefined],
    ]);
    expect(server.requests[0]!.query).toMatchObject({ startIndex: "15", maxResults: "5" });
    expect(() => paginateByOffset(client, { ...offsetPaging, pageSize: 0 })).toThrow(RangeError);
  });
});

describe("paginateByNextUrl", () => {
  it("follows relative links in the body", async () => {
    const pages = await collect(
      paginateByNextUrl(client, {
        schema: LinkPage,
        first: { target: "/links" },
        nextUrl: (page) => page.next,
      }),
    );
    expect(pages.flatMap((p) => p.data.items)).toEqual(ITEMS);
    expect(pages[0]!.position).toBe(`${server.url}/links`);
    expect(pages[1]!.position).toBe(`${server.url}/links?page=1`);
    expect(pages.at(-1)).toMatchObject({ done: true, next: undefined });
  });

  it("follows the Link header and resumes from a persisted URL", async () => {
    const options = {
      schema: LinkPage,
      first: { target: "/links", query: { style: "header" } },
      nextUrl: (_page: z.output<typeof LinkPage>, res: { headers: Headers }) =>
        nextLinkFromHeader(res.headers),
    };
    const first = await collect(paginateByNextUrl(client, { ...options, maxPages: 3 }));
    const cursor = first.at(-1)!.next!;
    expect(cursor).toBe(`${server.url}/links?style=header&page=3`);
    const rest = await collect(paginateByNextUrl(client, { ...options, start: cursor }));
    expect([...first, ...rest].flatMap((p) => p.data.items)).toEqual(ITEMS);
  });

  it("refuses a link to another origin, which would receive the client's headers", async () => {
    otherOrigin = "https://elsewhere.example";
    const err = await collect(
      paginateByNextUrl(client, {
        schema: LinkPage,
        first: { target: "/links" },
        nextUrl: (page) => page.next,
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect((err as Error).message).toContain("next page link leaves http://127.0.0.1:");
    expect(server.requests).toHaveLength(1);
  });
});

describe("paginators", () => {
  it("stop with the signal's reason when it aborts between pages", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const err = await (async () => {
      for await (const page of paginateByToken(client, {
        ...tokenPaging,
        signal: controller.signal,
      })) {
        seen.push(page.index);
        if (page.index === 1) controller.abort(new Error("run cancelled"));
      }
    })().catch((e: unknown) => e);
    expect((err as Error).message).toBe("run cancelled");
    expect(seen).toEqual([0, 1]);
    expect(server.requests).toHaveLength(2);
  });

  it("type pages with a parse function and report a bad page as BadPayloadError", async () => {
    const parse = (json: unknown): string[] => {
      const items = (json as { items?: unknown }).items;
      if (!Array.isArray(items)) throw new Error("items: expected an array");
      return items.map(String);
    };
    const pages = await collect(
      paginateByToken(client, {
        parse,
        request: tokenPaging.request,
        nextToken: () => undefined,
      }),
    );
    expect(pages[0]!.data).toEqual(ITEMS.slice(0, PAGE));
    const bad = await collect(
      paginateByToken(client, {
        parse: () => {
          throw new Error("items: expected an array");
        },
        request: () => ({ target: "/tokens" }),
        nextToken: () => undefined,
      }),
    ).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadPayloadError);
    expect((bad as BadPayloadError).issues).toBe("items: expected an array");
    const wrongShape = await collect(
      paginateByOffset(client, {
        ...offsetPaging,
        schema: OffsetPage.extend({ items: z.array(z.string().regex(/^never/)) }),
      }),
    ).catch((e: unknown) => e);
    expect(wrongShape).toBeInstanceOf(BadPayloadError);
  });

  it("reject a maxPages that is not a positive integer", async () => {
    await expect(collect(paginateByToken(client, { ...tokenPaging, maxPages: 0 }))).rejects.toThrow(
      RangeError,
    );
  });
});

describe("nextLinkFromHeader", () => {
  it("finds rel=next among several links and rel values", () => {
    const h = (link: string) => new Headers({ link });
    expect(
      nextLinkFromHeader(h('<https://a/x?p=2>; rel="next", <https://a/x?p=9>; rel="last"')),
    ).toBe("https://a/x?p=2");
    expect(nextLinkFromHeader(h('<https://a/x?p=1>; rel="prev", </x?p=3>; rel="next last"'))).toBe(
      "/x?p=3",
    );
    expect(nextLinkFromHeader(h('<https://a/x?a=1,2>; title="t"; rel=next'))).toBe(
      "https://a/x?a=1,2",
    );
    expect(nextLinkFromHeader(h('<https://a/x?p=9>; rel="last"'))).toBeUndefined();
    expect(nextLinkFromHeader(new Headers())).toBeUndefined();
  });
});
