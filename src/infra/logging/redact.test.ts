import { describe, expect, it } from "vitest";
import { redactDatabaseUrl } from "../db/open-database.ts";
import {
  REDACTED,
  redactStrings,
  redactText,
  redactUrlPassword,
  rememberSecret,
} from "./redact.ts";

describe("URL passwords with unencoded @, / or spaces", () => {
  it("redactText hides the whole password, up to the last @", () => {
    expect(redactText("connect postgres://app:s3cr@t@db:5432/x failed")).toBe(
      `connect postgres://app:${REDACTED}@db:5432/x failed`,
    );
    expect(redactText("postgres://app:pa/ss@db/x")).toBe(`postgres://app:${REDACTED}@db/x`);
    expect(redactText("postgres://:hunter2@db/x")).toBe(`postgres://:${REDACTED}@db/x`);
    // The scheme's colon forgotten: still a URL with a password.
    expect(redactText("https//user:hunter2@host/hook")).toBe(`https//user:${REDACTED}@host/hook`);
  });

  it("redactText leaves a port followed by a path alone, and stays idempotent", () => {
    const plain = "GET http://localhost:8787/api/@scope/pkg";
    expect(redactText(plain)).toBe(plain);
    const masked = "database postgres://tm:***@h:1/x: cannot connect";
    expect(redactText(masked)).toBe(masked);
  });

  it("redactUrlPassword (a string that is one URL) hides any password, spaces included", () => {
    for (const url of [
      "postgres://u:s3cr@t@127.0.0.1:1/x",
      "postgres://u:pa/ss@127.0.0.1:1/x",
      "postgres://u:pass word@127.0.0.1:1/x",
      "postgres://u:pa?ss@127.0.0.1:1/x",
    ]) {
      expect(redactUrlPassword(url), url).toBe("postgres://u:***@127.0.0.1:1/x");
      expect(redactDatabaseUrl(url), url).toBe("postgres://u:***@127.0.0.1:1/x");
    }
    expect(redactUrlPassword("postgres://h/x?sslmode=require&password=pw")).toBe(
      "postgres://h/x?sslmode=require&password=***",
    );
    expect(redactUrlPassword("postgres://u@h:5432/x")).toBe("postgres://u@h:5432/x");
  });
});

describe("rememberSecret", () => {
  it("masks a remembered value wherever it appears, also URL-encoded and with no name before it", () => {
    rememberSecret("sk-remembered+key/123");
    expect(redactText('{"message":"Incorrect API key provided: sk-remembered+key/123"}')).toBe(
      '{"message":"Incorrect API key provided: [REDACTED]"}',
    );
    expect(redactText("echo: q=sk-remembered%2Bkey%2F123 and sk-remembered+key/123")).toBe(
      "echo: q=[REDACTED] and [REDACTED]",
    );
  });

  it("does not remember values too short to be a credential, nor an unset one", () => {
    rememberSecret("1234567");
    rememberSecret(undefined);
    rememberSecret("   ");
    expect(redactText("page 1234567 of 9")).toBe("page 1234567 of 9");
  });
});

describe("redactStrings", () => {
  it("redacts secrets inside every string of a value and keeps its keys and other values", () => {
    rememberSecret("app-id-0123456789");
    const summary = {
      key: "item",
      failures: [{ target: "a", message: "HTTP 400: applicationId=app-id-0123456789&x=1" }],
      total: 3,
      none: null,
    };
    expect(redactStrings(summary)).toEqual({
      key: "item",
      failures: [{ target: "a", message: "HTTP 400: applicationId=[REDACTED]&x=1" }],
      total: 3,
      none: null,
    });
  });
});
