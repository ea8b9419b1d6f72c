import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { booksRunParams } from "../../src/pipelines/books/params.ts";

// The example of docs/pipelines/books.md, as YAML.
const EXAMPLE = `
queries: ["intitle:consulting", "subject:management"]
max_per_run: 80
google_books: { langRestrict: ja, printType: books, orderBy: newest }
api_key_env: GOOGLE_BOOKS_API_KEY
select: { count: 5 }
mail: { to: me@example.com, from: digest@example.com, subject: New books }
`;

function issues(input: unknown): string[] {
  const r = booksRunParams.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("books.run params", () => {
  it("accepts the documented example as written and fills defaults", () => {
    const parsed = booksRunParams.parse(parse(EXAMPLE));
    expect(parsed).toEqual({
      queries: ["intitle:consulting", "subject:management"],
      max_per_run: 80,
      google_books: { langRestrict: "ja", printType: "books", orderBy: "newest" },
      api_key_env: "GOOGLE_BOOKS_API_KEY",
      select: { count: 5, order: "newest" },
      mail: { to: "me@example.com", from: "digest@example.com", subject: "New books" },
    });
  });

  it("rejects unknown keys at every level", () => {
    const example = parse(EXAMPLE);
    expect(issues({ ...example, extra: 1 })).toEqual([': Unrecognized key: "extra"']);
    expect(issues({ ...example, google_books: { orderBy: "newest", maxResults: 40 } })).toEqual([
      'google_books: Unrecognized key: "maxResults"',
    ]);
    expect(issues({ ...example, mail: { ...example.mail, cc: "x@example.com" } })).toEqual([
      'mail: Unrecognized key: "cc"',
    ]);
  });

  it("names the offending field", () => {
    const example = parse(EXAMPLE);
    expect(issues({ ...example, queries: [] })[0]).toMatch(/^queries: /);
    expect(issues({ ...example, queries: ["ok", "   "] })).toEqual([
      "queries.1: must not be blank",
    ]);
    expect(issues({ ...example, max_per_run: 0 })[0]).toMatch(/^max_per_run: /);
    expect(issues({ ...example, google_books: { printType: "comics" } })[0]).toMatch(
      /^google_books\.printType: /,
    );
    expect(issues({ ...example, mail: { ...example.mail, to: "not-an-address" } })[0]).toMatch(
      /^mail\.to/,
    );
    expect(issues({ ...example, select: { count: 0 } })[0]).toMatch(/^select\.count: /);
  });

  it("refuses an API key pasted where the variable name belongs", () => {
    const example = parse(EXAMPLE);
    expect(issues({ ...example, api_key_env: "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW" })).toEqual([
      "api_key_env: looks like an API key itself; put the key in an environment variable and give its name",
    ]);
    expect(issues({ ...example, api_key_env: "not a name" })[0]).toMatch(
      /environment variable name/,
    );
  });

  it("refuses queries that are the same once whitespace is normalised", () => {
    const example = parse(EXAMPLE);
    expect(issues({ ...example, queries: ["intitle:a  b", " intitle:a b"] })).toEqual([
      "queries.1: duplicates queries[0] once whitespace is normalised",
    ]);
  });

  it("needs max_per_run of at least one item per query", () => {
    const example = parse(EXAMPLE);
    expect(issues({ ...example, queries: ["a", "b", "c"], max_per_run: 2 })).toEqual([
      "max_per_run: must be at least the number of queries (3)",
    ]);
  });

  it("accepts a list of recipients", () => {
    const example = parse(EXAMPLE);
    expect(
      issues({ ...example, mail: { ...example.mail, to: ["a@example.com", "b@example.com"] } }),
    ).toEqual([]);
  });
});
