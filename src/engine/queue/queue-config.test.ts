import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../../infra/config/load-config.ts";
import { ConfigError } from "../errors.ts";

function dir(yaml?: string): string {
  const cwd = mkdtempSync(path.join(tmpdir(), "tm-qcfg-"));
  onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
  if (yaml !== undefined) writeFileSync(path.join(cwd, "tidemark.yaml"), yaml);
  return cwd;
}

describe("queue configuration", () => {
  it("defaults to the embedded engine", () => {
    expect(loadConfig({ cwd: dir(), env: {} }).queue).toEqual({ engine: "embedded" });
  });

  it("pg-boss uses the Postgres database, schema pgboss, unless told otherwise", () => {
    const env = { TIDEMARK_QUEUE: "pg-boss", TIDEMARK_DATABASE_URL: "postgres://u@db:5432/app" };
    expect(loadConfig({ cwd: dir(), env }).queue).toEqual({
      engine: "pg-boss",
      url: "postgres://u@db:5432/app",
      schema: "pgboss",
      maintenanceIntervalSeconds: 30,
    });
    const yaml =
      "queue: pg-boss\npg_boss:\n  url: postgres://q@queue/jobs\n  schema: tm_boss\n  maintenance_interval_seconds: 5\n";
    expect(loadConfig({ cwd: dir(yaml), env: {} }).queue).toEqual({
      engine: "pg-boss",
      url: "postgres://q@queue/jobs",
      schema: "tm_boss",
      maintenanceIntervalSeconds: 5,
    });
    expect(
      loadConfig({
        cwd: dir(yaml),
        env: { TIDEMARK_PG_BOSS_SCHEMA: "other", TIDEMARK_QUEUE: "embedded" },
      }).queue,
    ).toEqual({ engine: "embedded" });
  });

  it("pg-boss on a SQLite database without pg_boss.url is a configuration error", () => {
    const load = () => loadConfig({ cwd: dir("queue: pg-boss\n"), env: {} });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      /queue: pg-boss needs Postgres: set pg_boss\.url, or a postgres:\/\/ database\.url/,
    );
  });

  it("names the bad key and value", () => {
    expect(() => loadConfig({ cwd: dir(), env: { TIDEMARK_QUEUE: "redis" } })).toThrow(
      /configuration: queue: .*\(got "redis"\)/,
    );
    expect(() => loadConfig({ cwd: dir("pg_boss:\n  schema: 9bad-name\n"), env: {} })).toThrow(
      /pg_boss\.schema: must be letters, digits and _ .*\(got "9bad-name"\)/,
    );
    expect(() => loadConfig({ cwd: dir("pg_boss:\n  url: mysql://x\n"), env: {} })).toThrow(
      /pg_boss\.url: must be a postgres:\/\/ URL/,
    );
  });
});
