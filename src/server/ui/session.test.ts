import { describe, expect, it } from "vitest";
import { safeNext } from "./format.ts";
import { SessionKeys } from "./session.ts";

describe("SessionKeys", () => {
  const now = 1_800_000_000;
  const keys = new SessionKeys(["token-a-0123456789", "token-b-0123456789"]);
  const id = keys.matchToken("token-a-0123456789")!;

  it("matches only configured tokens", () => {
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(keys.matchToken("token-b-0123456789")).not.toBe(id);
    expect(keys.matchToken("token-a-012345678")).toBeUndefined();
    expect(keys.matchToken("")).toBeUndefined();
  });

  it("accepts its own session until it expires", () => {
    const cookie = keys.issue(id, now, 60);
    expect(keys.verify(cookie, now + 59)?.tokenId).toBe(id);
    expect(keys.verify(cookie, now + 60)).toBeUndefined();
  });

  it("signs the session out when its token is removed or the tokens change", () => {
    const cookie = keys.issue(id, now);
    expect(new SessionKeys(["token-a-0123456789"]).verify(cookie, now)).toBeUndefined();
    expect(
      new SessionKeys(["token-b-0123456789", "token-a-0123456789"]).verify(cookie, now),
    ).toBeDefined();
  });

  it("ties CSRF tokens to one session nonce", () => {
    const s = keys.verify(keys.issue(id, now), now)!;
    const t = keys.verify(keys.issue(id, now), now)!;
    expect(keys.checkCsrf(s.nonce, keys.csrf(s.nonce))).toBe(true);
    expect(keys.checkCsrf(s.nonce, keys.csrf(t.nonce))).toBe(false);
    expect(keys.checkCsrf(s.nonce, undefined)).toBe(false);
  });
});

describe("safeNext", () => {
  it("keeps dashboard paths and turns anything else into /ui", () => {
    expect(safeNext("/ui/runs?job=a")).toBe("/ui/runs?job=a");
    expect(safeNext("/ui")).toBe("/ui");
    for (const bad of [
      undefined,
      "",
      "https://evil.example/ui",
      "//evil.example",
      "/uix",
      "/ui\\x",
      "/api/jobs",
    ]) {
      expect(safeNext(bad)).toBe("/ui");
    }
  });
});
