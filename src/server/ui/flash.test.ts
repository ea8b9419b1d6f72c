import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { setFlash, takeFlash } from "./auth-middleware.ts";
import type { UiEnv } from "./ui-env.ts";

describe("flash message", () => {
  it("a long message cut inside an emoji still sets its cookie and reads back whole", async () => {
    const text = `${"a".repeat(299)}😀 and more`;
    const app = new Hono<UiEnv>();
    app.post("/ui/set", (c) => {
      setFlash(c, text);
      return c.text("ok");
    });
    app.get("/ui/read", (c) => c.text(takeFlash(c)?.text ?? ""));
    const set = await app.request("/ui/set", { method: "POST" });
    expect(set.status).toBe(200);
    const cookie = set.headers.getSetCookie()[0]!.split(";")[0]!;
    const read = await (await app.request("/ui/read", { headers: { cookie } })).text();
    expect(read).toBe(`${"a".repeat(299)}😀`);
  });
});
