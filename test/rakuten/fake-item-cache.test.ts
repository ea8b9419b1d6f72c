import { describe, expect, it } from "vitest";
import { endpointPath } from "../../src/pipelines/rakuten/client/endpoints.ts";
import { RakutenApiFake } from "../../src/pipelines/rakuten/fake/rakuten-api-fake.ts";

const PATH = endpointPath("item", "openapi").replace(/^\/+/, "");

/** Item Search for one code through the fake's answer (no HTTP), parsed. */
async function search(fake: RakutenApiFake, code: string, version = 2) {
  const url = new URL(
    `http://fake/${PATH}?itemCode=${encodeURIComponent(code)}&applicationId=a&accessKey=k&formatVersion=${version}`,
  );
  const a = await fake.answer({ method: "GET", url, header: () => null, text: async () => "" });
  const text = typeof a.body === "string" ? a.body : Buffer.from(a.body).toString("utf8");
  return { status: a.status, body: JSON.parse(text) };
}

describe("the fake's cached item answers", () => {
  it("serve the same bytes until the catalogue changes that item", async () => {
    const fake = new RakutenApiFake({ size: 20, knobs: { rateLimit: false } });
    const [code, other] = fake.catalogue.itemCodes(2) as [string, string];
    const first = await search(fake, code);
    expect(await search(fake, code)).toEqual(first);
    const price = first.body.Items[0].itemPrice as number;
    fake.catalogue.setPrice(code, price + 10);
    expect((await search(fake, code)).body.Items[0].itemPrice).toBe(price + 10);
    fake.catalogue.reorderImages(code);
    const reordered = (await search(fake, code)).body.Items[0].smallImageUrls as string[];
    expect(reordered).toEqual([...(first.body.Items[0].smallImageUrls as string[])].reverse());
    fake.catalogue.removeItem(code);
    const gone = (await search(fake, code)).body;
    expect(gone).toMatchObject({ count: 0 });
    expect(gone).not.toHaveProperty("Items");
    fake.catalogue.restoreItem(code);
    expect((await search(fake, code)).body.Items[0].itemCode).toBe(code);
    // Another item and the other format are cached apart.
    expect((await search(fake, other)).body.Items[0].itemCode).toBe(other);
    expect((await search(fake, code, 1)).body.Items[0].Item.itemCode).toBe(code);
  });
});
