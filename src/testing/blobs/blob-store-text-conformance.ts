import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BlobNotFoundError, type BlobStore } from "../../infra/blobs/blob-store.ts";

/** getTextAndDigest's part of the BlobStore conformance suite; `store` gives the test's store. */
export function describeTextReads(store: () => BlobStore): void {
  describe("getTextAndDigest", () => {
    it("reads text with the SHA-256 of the bytes as stored, alone and in a batch", async () => {
      const s = store();
      const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
      // An invalid byte decodes to U+FFFD, but the digest is of the bytes as they are.
      const odd = Buffer.concat([Buffer.from('{"名前":"'), Buffer.from([0xff]), Buffer.from('"}')]);
      await s.put("text/odd.json", odd);
      expect(await s.getTextAndDigest("text/odd.json")).toEqual({
        text: odd.toString("utf8"),
        sha256: sha(odd),
      });
      const bodies = Array.from({ length: 9 }, (_, i) => Buffer.from(`{"n":${i},"s":"データ"}`));
      await Promise.all(bodies.map((b, i) => s.put(`text/${i}.json`, b)));
      const got = await Promise.all(bodies.map((_, i) => s.getTextAndDigest(`text/${i}.json`)));
      expect(got).toEqual(bodies.map((b) => ({ text: b.toString("utf8"), sha256: sha(b) })));
    });

    it("rejects with BlobNotFoundError, alone and in a batch", async () => {
      const s = store();
      await s.put("m/present.json", "{}");
      const keys = ["m/present.json", "m/a.json", "m/present.json", "m/b.json", "m/present.json"];
      const got = await Promise.all(keys.map((k) => s.getTextAndDigest(k).catch((e) => e)));
      expect(got.map((g) => (g instanceof BlobNotFoundError ? g.key : g.text))).toEqual([
        "{}",
        "m/a.json",
        "{}",
        "m/b.json",
        "{}",
      ]);
      await expect(s.getTextAndDigest("m/c.json")).rejects.toBeInstanceOf(BlobNotFoundError);
    });
  });
}
