import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BadPayloadError,
  formatIssuePath,
  QuotaExceededError,
  RetryableHttpError,
  redactedExcerpt,
  summarizeIssues,
} from "./http-errors.ts";

describe("issue summaries", () => {
  it("renders paths with indexes and keeps to one line", () => {
    expect(formatIssuePath(["items", 1, "volumeInfo", "title"])).toBe("items[1].volumeInfo.title");
    expect(formatIssuePath([])).toBe("(root)");
    const result = z
      .object({ a: z.string(), b: z.array(z.number()) })
      .safeParse({ a: 1, b: [1, "x"] });
    expect(result.success).toBe(false);
    const summary = summarizeIssues(result.error?.issues ?? []);
    expect(summary).toMatch(/^a: .+; b\[1\]: .+$/);
    expect(summary).not.toContain("\n");
    const many = Array.from({ length: 8 }, (_, i) => ({ path: [i], message: "bad" }));
    expect(summarizeIssues(many, 2)).toBe("[0]: bad; [1]: bad (+6 more)");
  });
});

describe("redactedExcerpt", () => {
  it("is short, single-line and redacted", () => {
    const body = `{"token": "abc123", "title": "x"}\n key=abc123 https://h/p?apiKey=abc123 Bearer abc123 ${"z".repeat(500)}`;
    const excerpt = redactedExcerpt(body, 120);
    expect(excerpt).not.toContain("abc123");
    expect(excerpt).not.toContain("\n");
    expect(excerpt.length).toBeLessThanOrEqual(121);
    expect(excerpt).toContain('"title": "x"');
  });
  it("redacts a secret cut off at the end of the excerpt window", () => {
    const body = `${" ".repeat(10)}{"password": "${"p".repeat(100)}`;
    expect(redactedExcerpt(body, 5)).not.toContain("ppp");
    expect(redactedExcerpt(`{"apiKey": "${"s".repeat(30)}`, 200)).toBe('{"apiKey": "[REDACTED]');
  });
});

describe("HttpError", () => {
  it("redacts the URL and message and carries status, attempts and retryability", () => {
    const err = new RetryableHttpError("HTTP 503", {
      url: "https://api.example.com/v1?key=SECRET&q=1",
      status: 503,
      attempts: 4,
      reason: "status",
    });
    expect(err.url).toBe("https://api.example.com/v1?key=[REDACTED]&q=1");
    expect(err.message).toBe(
      "GET https://api.example.com/v1?key=[REDACTED]&q=1 failed after 4 attempts: HTTP 503",
    );
    expect(err.retryable).toBe(true);
    expect(err.name).toBe("RetryableHttpError");
    expect(err.exitCode).toBe(1);
  });
  it("marks quota and schema errors as not retryable, truncation as retryable", () => {
    const base = { url: "https://x/", attempts: 1 };
    expect(new QuotaExceededError({ ...base, status: 429, bodyText: "" }).retryable).toBe(false);
    expect(new BadPayloadError({ ...base, kind: "schema", bodyText: "{}" }).retryable).toBe(false);
    expect(new BadPayloadError({ ...base, kind: "truncated", bodyText: "{" }).retryable).toBe(true);
  });
});
