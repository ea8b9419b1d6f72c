import { BadPayloadError, RetryableHttpError } from "tidemark/kit";
import { describe, expect, it } from "vitest";
import { readRakutenCredentials } from "../../src/pipelines/rakuten/client/credentials.ts";
import {
  RakutenApiError,
  RakutenNotFoundError,
} from "../../src/pipelines/rakuten/client/errors.ts";
import { normalizeGenre } from "../../src/pipelines/rakuten/stages/normalize/normalize-genre.ts";
import { normalizeItem } from "../../src/pipelines/rakuten/stages/normalize/normalize-item.ts";
import { normalizeRanking } from "../../src/pipelines/rakuten/stages/normalize/normalize-ranking.ts";
import { normalizeTag } from "../../src/pipelines/rakuten/stages/normalize/normalize-tag.ts";
import { CLIENT_ENV, clientFixture, settingsFor } from "./support/client-fixture.ts";

/** Drops the fetch meta so two answers can be compared. */
function content<T extends object>(raw: T | undefined): Omit<T, "fetched_at"> | undefined {
  if (raw === undefined) return undefined;
  const { fetched_at: _f, ...rest } = raw as T & { fetched_at: string };
  return rest;
}

describe("rakuten client", () => {
  it("reads an item the same way in formatVersion 1 and 2, numbers typed", async () => {
    const f = await clientFixture();
    const code = f.catalogue.itemCodes(1)[0] as string;
    const v2 = await f.makeClient({ format_version: 2 }).searchItemByCode(code);
    const v1 = await f.makeClient({ format_version: 1 }).searchItemByCode(code);
    expect(v2?.itemCode).toBe(code);
    expect(typeof v2?.genreId).toBe("number");
    expect(typeof v2?.itemPrice).toBe("number");
    expect(v2?.smallImageUrls.every((u) => typeof u === "string")).toBe(true);
    expect(v2?.api_version).toBe("20220601");
    expect(content(v1)).toEqual(content(v2));
    const versions = f.server.requests.map((r) => r.query.formatVersion);
    expect(versions).toEqual(["2", "1"]);
    // The new host by default: its path, applicationId and accessKey.
    const first = f.server.requests[0];
    expect(first?.path).toBe("/ichibams/api/IchibaItem/Search/20220601");
    expect(first?.query.applicationId).toBe(CLIENT_ENV.RAKUTEN_APPLICATION_ID);
    expect(first?.query.accessKey).toBe(CLIENT_ENV.RAKUTEN_ACCESS_KEY);
  });

  it("reads ranking, genre and tag in both formats to the same documents", async () => {
    const f = await clientFixture();
    const docs = [];
    for (const format_version of [1, 2]) {
      const c = f.makeClient({ format_version });
      const ranking = await c.ranking(100227);
      const genre = await c.genre(100227);
      const tag = await c.tag(1000902);
      if (tag === undefined) throw new Error("tag missing");
      docs.push({
        ranking: normalizeRanking(ranking),
        genre: normalizeGenre(genre),
        tag: normalizeTag(tag),
      });
    }
    expect(docs[0]).toEqual(docs[1]);
    const ranking = docs[1]?.ranking;
    expect(ranking?.items.length).toBeGreaterThan(0);
    expect(ranking?.items.map((i) => i.rank)).toEqual(ranking?.items.map((_, k) => k + 1));
    expect(typeof ranking?.items[0]?.itemPrice).toBe("number");
    expect(docs[1]?.genre.children.length).toBeGreaterThan(0);
    expect(docs[1]?.tag).toMatchObject({ tagId: 1000902, tagName: "母の日", tagGroupId: 1000064 });
  });

  it("answers undefined for an item search with 0 results, Items empty or absent", async () => {
    const f = await clientFixture();
    const code = f.catalogue.itemCodes(1)[0] as string;
    f.catalogue.removeItem(code);
    const client = f.makeClient();
    expect(await client.searchItemByCode(code)).toBeUndefined();
    f.fake.setKnobs({ zeroItems: "empty" });
    expect(await client.searchItemByCode(code)).toBeUndefined();
    expect(await client.searchItemByCode("nosuchshop:1")).toBeUndefined();
    // The item returns: a normal answer again.
    f.catalogue.restoreItem(code);
    expect((await client.searchItemByCode(code))?.itemCode).toBe(code);
  });

  it("turns 404 not_found into a per-target error, in both error shapes", async () => {
    for (const errorShape of ["new", "old"] as const) {
      const f = await clientFixture({ knobs: { errorShape } });
      const client = f.makeClient();
      const err = await client.genre(999_999).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RakutenNotFoundError);
      expect((err as RakutenNotFoundError).status).toBe(404);
      await expect(client.tag(999_999)).rejects.toBeInstanceOf(RakutenNotFoundError);
    }
  });

  it("reports wrong parameters with the API's message, old and new shape, no secret", async () => {
    for (const errorShape of ["new", "old"] as const) {
      const f = await clientFixture({ knobs: { errorShape } });
      const err = await f
        .makeClient()
        .ranking(-1)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RakutenApiError);
      const message = (err as Error).message;
      // The new shape's code is the status itself: said once, not "HTTP 400 400: …".
      expect(message).toMatch(
        errorShape === "new"
          ? /HTTP 400 genreId must be between/
          : /HTTP 400 wrong_parameter: genreId must be between/,
      );
      expect(message).not.toContain(CLIENT_ENV.RAKUTEN_ACCESS_KEY);
      expect(message).not.toContain(CLIENT_ENV.RAKUTEN_APPLICATION_ID);
    }
  });

  it("retries 429 after the Retry-After the fake sends, then succeeds", async () => {
    const f = await clientFixture({ knobs: { burst429: 2, retryAfterSeconds: 3 } });
    const client = f.makeClient();
    const code = f.catalogue.itemCodes(1)[0] as string;
    expect((await client.searchItemByCode(code))?.itemCode).toBe(code);
    expect(f.waits).toEqual([3000, 3000]);
    expect(f.fake.stats.burst429).toBe(2);
    expect(client.stats).toEqual({ requests: 3, rateLimited: 2, serverErrors: 0 });
  });

  it("retries 503 maintenance with backoff and gives up after the configured attempts", async () => {
    const f = await clientFixture({ knobs: { maintenance: true, retryAfterSeconds: 0 } });
    const client = f.makeClient({ retry_max_attempts: 3 });
    const err = await client.ranking(0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableHttpError);
    expect((err as RetryableHttpError).status).toBe(503);
    expect(f.fake.stats.maintenance503).toBe(3);
    expect(f.waits).toHaveLength(2);
    f.fake.setKnobs({ maintenance: false });
    expect((await client.ranking(0)).Items.length).toBeGreaterThan(0);
  });

  it("fails a malformed payload as a bad payload (the next call is fine)", async () => {
    const f = await clientFixture({ knobs: { malformed: 1 } });
    const client = f.makeClient();
    const code = f.catalogue.itemCodes(1)[0] as string;
    await expect(client.searchItemByCode(code)).rejects.toBeInstanceOf(BadPayloadError);
    expect((await client.searchItemByCode(code))?.itemCode).toBe(code);
  });

  it("sends the access key as a bearer header when told to", async () => {
    const f = await clientFixture();
    const code = f.catalogue.itemCodes(1)[0] as string;
    await f
      .makeClient({ access_key_in: "bearer", referer: "https://gift.example.com/app" })
      .searchItemByCode(code);
    const req = f.server.requests[0];
    expect(req?.query.accessKey).toBeUndefined();
    expect(req?.headers.authorization).toBe(`Bearer ${CLIENT_ENV.RAKUTEN_ACCESS_KEY}`);
    expect(req?.headers.referer).toBe("https://gift.example.com/app");
    expect(req?.headers.origin).toBe("https://gift.example.com");
  });

  it("speaks the old host's paths and error shape when the base URL is the old root", async () => {
    const f = await clientFixture();
    const client = f.makeClient(
      {},
      { url: `${f.url}/services/api`, env: { RAKUTEN_APPLICATION_ID: "old-app" } },
    );
    const code = f.catalogue.itemCodes(1)[0] as string;
    expect((await client.searchItemByCode(code))?.itemCode).toBe(code);
    expect(f.server.requests[0]?.path).toBe("/services/api/IchibaItem/Search/20220601");
    const err = await client.genre(999_999).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/HTTP 404 not_found/);
  });

  it("is refused by the new host without an access key", async () => {
    const f = await clientFixture();
    const settings = settingsFor(f.url, { access_key_env: "NO_SUCH_VAR_FOR_TEST" });
    expect(() => readRakutenCredentials(settings, CLIENT_ENV)).toThrow(
      /^NO_SUCH_VAR_FOR_TEST is not set: the new Rakuten host needs an access key/,
    );
    // The new host refuses a call without one.
    const res = await fetch(
      `${f.url}/ichibams/api/IchibaItem/Search/20220601?applicationId=x&itemCode=a:1`,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: { errorCode: 400, errorMessage: "accessKey must be present" },
    });
  });

  it("names the missing application id variable, never a value", () => {
    const settings = settingsFor("https://openapi.rakuten.co.jp");
    expect(() => readRakutenCredentials(settings, {})).toThrow(
      /^RAKUTEN_APPLICATION_ID is not set/,
    );
    const renamed = settingsFor("https://openapi.rakuten.co.jp", {
      application_id_env: "MY_APP_ID",
    });
    expect(() => readRakutenCredentials(renamed, CLIENT_ENV)).toThrow(/^MY_APP_ID is not set/);
    expect(readRakutenCredentials(renamed, { ...CLIENT_ENV, MY_APP_ID: " x " }).applicationId).toBe(
      "x",
    );
  });

  it("normalizes what it reads into documents that hash the same across formats", async () => {
    const f = await clientFixture();
    const code = f.catalogue.itemCodes(1)[0] as string;
    const a = await f.makeClient({ format_version: 1 }).searchItemByCode(code);
    f.catalogue.reorderImages(code);
    const b = await f.makeClient({ format_version: 2 }).searchItemByCode(code);
    if (!a || !b) throw new Error("missing");
    expect(a.smallImageUrls).not.toEqual(b.smallImageUrls);
    expect(normalizeItem(a)).toEqual(normalizeItem(b));
  });

  it("takes a shared token before every attempt, unless the scope is the process", async () => {
    const f = await clientFixture({ knobs: { burst429: 1, retryAfterSeconds: 0 } });
    const keys: string[] = [];
    const limiter = {
      acquire: async (key: string) => {
        keys.push(key);
      },
    };
    const code = f.catalogue.itemCodes(1)[0] as string;
    await f.makeClient({}, { limiter }).searchItemByCode(code);
    // Two attempts (a 429 then the answer), one token each, in a bucket named by a hash.
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^rakuten:[0-9a-f]{24}$/);
    expect(keys[0]).not.toContain(CLIENT_ENV.RAKUTEN_APPLICATION_ID);
    await f.makeClient({ rate_limit_scope: "process" }, { limiter }).searchItemByCode(code);
    expect(keys).toHaveLength(2);
  });

  it("refuses to file another item's answer under the code asked for", async () => {
    const f = await clientFixture();
    const other = { itemCode: "other-shop:1", itemName: "別の商品", itemPrice: 100 };
    f.server.faults.set({
      statusSequence: [{ status: 200, body: { count: 1, page: 1, Items: [other] } }],
    });
    await expect(f.makeClient().searchItemByCode("asked:1")).rejects.toThrow(
      /search for asked:1 answered other items: other-shop:1/,
    );
  });
});
