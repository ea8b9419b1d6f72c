import { describe, expect, it } from "vitest";
import { booksSettingsFrom } from "./support/books-settings.ts";

const cfg = (books?: Record<string, unknown>) => books;
/** Validated as tidemark.yaml at /etc/tidemark.yaml would be, with `env` as the environment. */
const resolveBooksSettings = (books: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv) =>
  booksSettingsFrom(books, env, "/etc/tidemark.yaml");

describe("books settings", () => {
  it("defaults to the real Google endpoint, 1,000 requests a day and no SMTP", () => {
    const s = resolveBooksSettings(cfg(), {});
    expect(s).toMatchObject({
      baseUrl: "https://www.googleapis.com",
      isGoogle: true,
      dailyRequestLimit: 1000,
      smtp: undefined,
    });
  });

  it("reads pipelines.books and lets TIDEMARK_* variables override it field by field", () => {
    const s = resolveBooksSettings(
      cfg({
        base_url: "http://proxy.local:8080/",
        daily_request_limit: 500,
        smtp: { host: "smtp.example.com", port: 2525, user: "bot", password: "pw-file" },
      }),
      {
        TIDEMARK_GOOGLE_BOOKS_URL: "http://127.0.0.1:9999",
        TIDEMARK_SMTP_PASSWORD: "pw-env",
        TIDEMARK_SMTP_SECURE: "true",
      },
    );
    expect(s.baseUrl).toBe("http://127.0.0.1:9999");
    expect(s.isGoogle).toBe(false);
    expect(s.dailyRequestLimit).toBe(500);
    expect(s.smtp).toEqual({
      host: "smtp.example.com",
      port: 2525,
      secure: true,
      user: "bot",
      password: "pw-env",
    });
  });

  it("picks the SMTP port from TLS mode when none is given", () => {
    expect(resolveBooksSettings(cfg(), { TIDEMARK_SMTP_HOST: "m" }).smtp?.port).toBe(587);
    expect(resolveBooksSettings(cfg({ smtp: { host: "m", secure: true } }), {}).smtp?.port).toBe(
      465,
    );
  });

  it("ignores the environment when use_env is false (the demo)", () => {
    const s = resolveBooksSettings(cfg({ base_url: "http://127.0.0.1:1", use_env: false }), {
      TIDEMARK_GOOGLE_BOOKS_URL: "https://evil.example",
      TIDEMARK_SMTP_HOST: "smtp.real.example",
    });
    expect(s.baseUrl).toBe("http://127.0.0.1:1");
    expect(s.smtp).toBeUndefined();
  });

  it("reports bad settings naming pipelines.books.<key> or the variable", () => {
    expect(() => resolveBooksSettings(cfg({ smtp: { port: "25" } }), {})).toThrow(
      /^\/etc\/tidemark\.yaml: pipelines\.books\.smtp\.port: .*\(got "25"\)$/,
    );
    expect(() => resolveBooksSettings(cfg({ quota: 5 }), {})).toThrow(
      '/etc/tidemark.yaml: pipelines.books: unknown key(s) "quota"',
    );
    expect(() =>
      resolveBooksSettings(cfg(), { TIDEMARK_SMTP_HOST: "m", TIDEMARK_SMTP_PORT: "abc" }),
    ).toThrow('TIDEMARK_SMTP_PORT: expected a port number 1-65535, got "abc"');
    expect(() => resolveBooksSettings(cfg(), { TIDEMARK_GOOGLE_BOOKS_URL: "ftp://x" })).toThrow(
      /^TIDEMARK_GOOGLE_BOOKS_URL: expected an http\(s\) URL/,
    );
  });
});
