import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BadPayloadError } from "./http-errors.ts";
import { parseJsonBody } from "./parse-json-body.ts";

const Schema = z.object({ id: z.string(), tags: z.array(z.string()) });
const init = { url: "https://api.example.com/x?key=SECRET", status: 200, attempts: 1 };

/** Runs parseJsonBody and returns the BadPayloadError it threw. */
function failure(body: string, headers = new Headers()): BadPayloadError {
  try {
    parseJsonBody(body, headers, Schema, init);
  } catch (err) {
    if (err instanceof BadPayloadError) return err;
    throw err;
  }
  throw new Error("expected a BadPayloadError");
}

describe("parseJsonBody", () => {
  it("returns the schema's output", () => {
    expect(parseJsonBody('{"id":"a","tags":["x"]}', new Headers(), Schema, init)).toEqual({
      id: "a",
      tags: ["x"],
    });
  });

  it("classifies bodies cut short as truncated", () => {
    expect(failure('{"id":"a","ta').kind).toBe("truncated");
    expect(failure('{"id":"a"').kind).toBe("truncated");
    expect(failure('{"id":"a"} x', new Headers({ "content-length": "500" })).kind).toBe(
      "truncated",
    );
    expect(failure('{"id":"a"} x').kind).toBe("invalid-json");
  });

  it("classifies garbage and empty bodies as invalid JSON without quoting V8's snippet", () => {
    const err = failure("key=SECRET is not json");
    expect(err.kind).toBe("invalid-json");
    expect(err.message).not.toContain("SECRET");
    expect(failure("  ").message).toContain("empty body");
  });

  it("names the request and every bad field, the first one as `field`", () => {
    const err = failure('{"id":5,"tags":["x",7]}');
    expect(err.kind).toBe("schema");
    expect(err.issues).toMatch(/^id: .+; tags\[1\]: .+$/);
    expect(err.field).toBe("id");
    expect(err.message).toMatch(
      /^GET https:\/\/api\.example\.com\/x\?key=\[REDACTED\] failed: .*id: /,
    );
    expect(err.message).not.toContain("SECRET");
    expect(err.retryable).toBe(false);
    expect(err.url).toBe("https://api.example.com/x?key=[REDACTED]");
  });
});

describe("parseJsonBody on a wrong-typed or missing field", () => {
  it("fails naming the field's path, never reading the body as empty", () => {
    const List = z.object({ items: z.array(z.object({ id: z.string() })) });
    const post = { ...init, method: "POST" };
    for (const [body, field] of [
      ["{}", "items"],
      ['{"items":null}', "items"],
      ['{"items":[{"id":"a"},{"id":7}]}', "items[1].id"],
    ] as const) {
      let caught: unknown;
      try {
        parseJsonBody(body, new Headers(), List, post);
      } catch (err) {
        caught = err;
      }
      expect(caught, body).toBeInstanceOf(BadPayloadError);
      expect((caught as BadPayloadError).field).toBe(field);
      expect((caught as BadPayloadError).message).toMatch(/^POST https:\/\/api\.example\.com\/x/);
    }
  });
});
