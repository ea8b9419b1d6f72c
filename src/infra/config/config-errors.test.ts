import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { loadConfig } from "./load-config.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A folder holding one tidemark.yaml with `text` (none when `text` is undefined). */
function withConfig(text?: string): string {
  const d = mkdtempSync(path.join(tmpdir(), "tm-cfg-err-"));
  dirs.push(d);
  if (text !== undefined) writeFileSync(path.join(d, "tidemark.yaml"), text);
  return d;
}

/** The ConfigError message loading this config throws (fails the test when none is thrown). */
function configError(cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadConfig({ cwd, env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("configuration errors", () => {
  it("a YAML alias without its anchor is a ConfigError naming the file", () => {
    const cwd = withConfig("env: &e dev\ndata_dir: *nowhere\n");
    expect(configError(cwd)).toBe(
      `${path.join(cwd, "tidemark.yaml")}: invalid YAML: Unresolved alias (the anchor must be set before the alias): nowhere`,
    );
  });

  it("a YAML syntax error names the file, line and column once, without a dangling colon", () => {
    const cwd = withConfig("env: [unclosed\n");
    expect(configError(cwd)).toBe(
      `${path.join(cwd, "tidemark.yaml")}:2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
  });

  it("a postgres URL pg cannot read is refused at load, its password hidden", () => {
    const cwd = withConfig();
    const message = configError(cwd, {
      TIDEMARK_DATABASE_URL: "postgres://app:pa/ss-hunter2@127.0.0.1:5432/x",
    });
    expect(message).toBe(
      'configuration: database.url: is not a valid URL: percent-encode @ / ? # % and spaces in the user name and password (@ is %40) (got "postgres://app:***@127.0.0.1:5432/x"), set by TIDEMARK_DATABASE_URL',
    );
    const boss = configError(withConfig("pg_boss:\n  url: 'postgres://a:b/hunter2@h/x'\n"));
    expect(boss).toMatch(/pg_boss\.url: is not a valid URL/);
    expect(boss).not.toContain("hunter2");
  });

  it("never prints a rejected URL's password, whatever it contains or however long", () => {
    const cases: Record<string, string> = {
      TIDEMARK_DATABASE_URL: `mysql://u:${"x".repeat(90)}hunter2@host/db`,
      TIDEMARK_NOTIFY_WEBHOOK_URL: "https//user:hunter2@host/hook",
      TIDEMARK_PUBLIC_URL: "https://u:hun ter2@/x y",
    };
    for (const [name, value] of Object.entries(cases)) {
      const message = configError(withConfig(), { [name]: value });
      expect(message, name).toContain(name);
      expect(message, name).not.toMatch(/hunter2|hun ter2|xxxx/);
    }
  });

  it("`sqlite:` without a file is refused instead of opening the folder", () => {
    expect(configError(withConfig("database:\n  url: 'sqlite:'\n"))).toMatch(
      /tidemark\.yaml: database\.url: sqlite: needs a file after it \(got "sqlite:"\)$/,
    );
  });

  it("an S3 secret without its key id (or the reverse) is refused at load, the secret hidden", () => {
    const env = {
      TIDEMARK_BLOBS_DRIVER: "s3",
      TIDEMARK_S3_BUCKET: "b",
      TIDEMARK_S3_SECRET_ACCESS_KEY: "hunter2hunter2",
    };
    const message = configError(withConfig(), env);
    expect(message).toMatch(/^configuration: blobs\.s3\.access_key_id: set access_key_id and/);
    expect(message).not.toContain("hunter2");
    const reverse = configError(
      withConfig("blobs:\n  driver: s3\n  s3:\n    bucket: b\n    access_key_id: AKIA1\n"),
    );
    expect(reverse).toMatch(/blobs\.s3\.secret_access_key: set access_key_id and/);
  });
});
