// The pages ask for their scripts and styles by a URL that changes with the content, so a
// browser that cached last version's files (an hour) gets the new ones right after an upgrade.
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi } from "./ui-app.ts";

describeEachDialect("dashboard assets", (h) => {
  it("every asset URL in a page carries a digest of the file it serves", async () => {
    const { app, get } = await openUi(await openTestRuntime(h));
    const page = (await get("/ui")).text;
    const urls = [...page.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBe(5);
    for (const url of urls) {
      const v = /\?v=([0-9a-f]{12})$/.exec(url)?.[1];
      expect({ url, versioned: v !== undefined }).toEqual({ url, versioned: true });
      const res = await app.request(url);
      expect(res.status).toBe(200);
      const digest = createHash("sha256")
        .update(await res.text())
        .digest("hex");
      expect(digest.slice(0, 12)).toBe(v);
    }
  });
});
