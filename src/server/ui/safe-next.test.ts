import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next.ts";

describe("safeNext", () => {
  it("keeps dashboard paths and their query", () => {
    expect(safeNext("/ui")).toBe("/ui");
    expect(safeNext("/ui/")).toBe("/ui/");
    expect(safeNext("/ui/runs?job=a&status=failed")).toBe("/ui/runs?job=a&status=failed");
    expect(safeNext("/ui/pipelines/books")).toBe("/ui/pipelines/books");
  });

  it("resolves dot segments and repeated slashes the way the browser will", () => {
    expect(safeNext("/ui/runs/../queue")).toBe("/ui/queue");
    expect(safeNext("/ui/./runs")).toBe("/ui/runs");
    expect(safeNext("/ui//runs")).toBe("/ui/runs");
    expect(safeNext("/ui/%2e%2e/ui/runs")).toBe("/ui/runs");
  });

  it("sends anything that leaves /ui, or could, to /ui", () => {
    for (const hostile of [
      undefined,
      "",
      "ui",
      "https://evil.example/ui",
      "//evil.example",
      "///evil.example",
      "/ui/../..//evil.example",
      "/ui/../../evil.example",
      "/ui/..",
      "/ui/%2e%2e/%2e%2e//evil.example",
      "/ui/%2E%2E/%2E%2E/%2Fevil.example",
      "/ui/.%2e/api/jobs",
      "/ui%2f..%2f..%2f%2fevil.example",
      "/ui/%252e%252e/%252e%252e//evil.example",
      "/ui/%5c%5cevil.example",
      "/ui/..\\..\\evil.example",
      "/ui\\x",
      "/\\evil.example",
      "/ui/%0d%0aSet-Cookie:x=1",
      "/ui/\r\nSet-Cookie:x=1",
      "/ui/%zz",
      "/uix",
      "/api/jobs",
      "/api/../ui/x/../../api",
    ]) {
      expect(safeNext(hostile), String(hostile)).toBe("/ui");
    }
  });

  it("never returns something a browser would read as another host", () => {
    for (const next of ["/ui/..//evil.example", "/ui/%2e%2e//evil.example", "/ui//evil.example"]) {
      const out = safeNext(next);
      expect(new URL(out, "https://dash.example").origin).toBe("https://dash.example");
      expect(out.startsWith("/ui")).toBe(true);
    }
  });
});
