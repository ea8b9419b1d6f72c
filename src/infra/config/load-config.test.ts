import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { loadConfig } from "./load-config.ts";
import { STARTER_CONFIG } from "./starter-config.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dir(files: Record<string, string> = {}): string {
  const d = mkdtempSync(path.join(tmpdir(), "tm-cfg-"));
  dirs.push(d);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(d, name), text);
  return d;
}

describe("configuration", () => {
  it("runs on defaults with no file: SQLite in ./data, fs blobs", () => {
    const cwd = dir();
    const cfg = loadConfig({ cwd, env: {} });
    expect(cfg.file).toBeUndefined();
    expect(cfg.dataDir).toBe(path.join(cwd, "data"));
    expect(cfg.database).toEqual({
      dialect: "sqlite",
      path: path.join(cwd, "data", "tidemark.db"),
      busyTimeoutMs: 5000,
    });
    expect(cfg.blobs).toEqual({ driver: "fs", root: path.join(cwd, "data", "blobs") });
    expect(cfg.env).toBe("dev");
  });

  it("reads tidemark.yaml from the working directory, resolving paths from the file", () => {
    const cwd = dir({ "tidemark.yaml": "env: prod\ndata_dir: ./store\nlog: { level: debug }\n" });
    const cfg = loadConfig({ cwd, env: {} });
    expect(cfg.file).toBe(path.join(cwd, "tidemark.yaml"));
    expect(cfg.env).toBe("prod");
    expect(cfg.dataDir).toBe(path.join(cwd, "store"));
    expect(cfg.log.level).toBe("debug");
  });

  it("the starter config written by init is valid and equals the defaults", () => {
    const cwd = dir({ "tidemark.yaml": STARTER_CONFIG });
    const { file: _f, ...fromStarter } = loadConfig({ cwd, env: {} });
    const empty = dir();
    const { file: _g, ...defaults } = loadConfig({ cwd: empty, env: {} });
    expect(JSON.stringify(fromStarter).replaceAll(cwd, "X")).toBe(
      JSON.stringify(defaults).replaceAll(empty, "X"),
    );
  });

  it("TIDEMARK_* variables override the file", () => {
    const other = dir();
    const cwd = dir({ "tidemark.yaml": "data_dir: ./a\n" });
    const cfg = loadConfig({
      cwd,
      env: {
        TIDEMARK_DATA_DIR: other,
        TIDEMARK_DATABASE_URL: "postgres://u:pw@db:5432/x",
        TIDEMARK_ENV: "prod",
        TIDEMARK_BLOBS_DRIVER: "s3",
        TIDEMARK_S3_BUCKET: "raw",
        TIDEMARK_S3_FORCE_PATH_STYLE: "true",
      },
    });
    expect(cfg.dataDir).toBe(other);
    expect(cfg.database).toEqual({ dialect: "postgres", url: "postgres://u:pw@db:5432/x" });
    expect(cfg.env).toBe("prod");
    expect(cfg.blobs).toMatchObject({
      driver: "s3",
      s3: { bucket: "raw", force_path_style: true },
    });
  });

  it("--config names a file elsewhere; a missing one is an error", () => {
    const cfgDir = dir({ "custom.yaml": "env: prod\n" });
    const cwd = dir();
    expect(loadConfig({ cwd, configPath: path.join(cfgDir, "custom.yaml"), env: {} }).env).toBe(
      "prod",
    );
    expect(() => loadConfig({ cwd, configPath: "nope.yaml", env: {} })).toThrow(
      "--config nope.yaml: file not found",
    );
  });

  it.each([
    ["env: staging\n", /tidemark.yaml: env: .* \(got "staging"\)/],
    [
      "database:\n  url: mysql://x\n",
      /database.url: must be a SQLite path .* \(got "mysql:\/\/x"\)/,
    ],
    ["log:\n  level: loud\n", /log.level: .* \(got "loud"\)/],
    ["databse: {}\n", /tidemark.yaml: \(root\): unknown key\(s\) "databse"/],
    ["database:\n  busy_timeout_ms: -1\n", /database.busy_timeout_ms: .* \(got -1\)/],
    ["blobs:\n  driver: s3\n", /blobs.s3: .* \(got nothing\)/],
    ["- a\n- b\n", /expected a mapping of settings/],
    ["env: [unclosed\n", /tidemark.yaml:\d+:\d+: invalid YAML/],
  ])("rejects %j naming the path and the value", (text, message) => {
    const cwd = dir({ "tidemark.yaml": text });
    const run = () => loadConfig({ cwd, env: {} });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(message);
  });

  it("rejects a bad TIDEMARK_* value naming the variable", () => {
    expect(() =>
      loadConfig({ cwd: dir(), env: { TIDEMARK_S3_FORCE_PATH_STYLE: "maybe" } }),
    ).toThrow('TIDEMARK_S3_FORCE_PATH_STYLE: expected true or false, got "maybe"');
    expect(() => loadConfig({ cwd: dir(), env: { TIDEMARK_ENV: "qa" } })).toThrow(
      /configuration: env: .* \(got "qa"\)/,
    );
  });
});

describe("configuration errors name where a value came from", () => {
  it("blames an environment variable, not the file, and never prints a token", () => {
    const cwd = dir({ "tidemark.yaml": "env: dev\n" });
    const load = () => loadConfig({ cwd, env: { TIDEMARK_API_TOKENS: "s3cr3t-token" } });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^TIDEMARK_API_TOKENS: api_tokens\.0: .*got a 12-character value/);
    expect(load).not.toThrow(/s3cr3t/);
    expect(load).not.toThrow(/tidemark\.yaml/);
  });

  it("never prints a secret given as a number or a list, only what kind of value it was", () => {
    const cases: Array<[string, RegExp]> = [
      ["notify:\n  webhook_secret: 987654321987\n", /notify\.webhook_secret: .*\(got a number\)/],
      ["api_tokens: [123456789012345678901234]\n", /api_tokens\.0: .*\(got a number\)/],
      [
        "blobs:\n  driver: s3\n  s3:\n    bucket: b\n    secret_access_key: [55555]\n",
        /\(got a list of 1\)/,
      ],
    ];
    for (const [yaml, message] of cases) {
      const load = () => loadConfig({ cwd: dir({ "tidemark.yaml": yaml }), env: {} });
      expect(load).toThrow(message);
      expect(load).not.toThrow(/987654321987|123456789012|55555/);
    }
  });
});
