import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/engine/errors.ts";
import { resolvePipelineSettings } from "../../src/infra/config/pipeline-settings.ts";
import { type MercariSettings, mercariSettings } from "../../src/pipelines/mercari/settings.ts";

const cfg = (
  mercari?: Record<string, unknown>,
): { file: string; pipelines: Record<string, Record<string, unknown>> } => ({
  file: "/etc/tidemark.yaml",
  pipelines: mercari === undefined ? {} : { mercari },
});

/** The settings the registry hands the pipeline for this configuration and environment. */
function resolveMercariSettings(
  config: ReturnType<typeof cfg>,
  env: NodeJS.ProcessEnv,
): MercariSettings {
  const base = { file: config.file, dataDir: "." };
  return resolvePipelineSettings("mercari", mercariSettings, config.pipelines.mercari, env, base);
}

/** The ConfigError message these settings are refused with (fails if they are accepted). */
function refusal(mercari: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): string {
  try {
    resolveMercariSettings(cfg(mercari), env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("accepted");
}

describe("mercari settings", () => {
  it("defaults: the real API, 1 request a second, 100 pages on a first run, 3 later", () => {
    expect(resolveMercariSettings(cfg(), {})).toEqual({
      baseUrl: "https://api.mercari.jp",
      requestsPerSecond: 1,
      firstRunMaxPages: 100,
      pagesPerRun: 3,
      pageSize: 120,
      requestTimeoutMs: 30_000,
      retryMaxAttempts: 4,
    });
  });

  it("reads pipelines.mercari; TIDEMARK_MERCARI_URL overrides base_url unless use_env is false", () => {
    const file = cfg({
      base_url: "http://proxy.local:8080/",
      requests_per_second: 0,
      pages_per_run: 2,
    });
    const s = resolveMercariSettings(file, { TIDEMARK_MERCARI_URL: "http://127.0.0.1:4010" });
    expect(s).toMatchObject({
      baseUrl: "http://127.0.0.1:4010",
      requestsPerSecond: 0,
      pagesPerRun: 2,
    });
    expect(resolveMercariSettings(file, {}).baseUrl).toBe("http://proxy.local:8080");
    const pinned = cfg({ base_url: "http://127.0.0.1:1", use_env: false });
    expect(
      resolveMercariSettings(pinned, { TIDEMARK_MERCARI_URL: "https://elsewhere" }).baseUrl,
    ).toBe("http://127.0.0.1:1");
  });

  it("a bad value or unknown key is a ConfigError naming the key", () => {
    expect(refusal({ requests_per_second: -1 })).toMatch(/pipelines\.mercari\.requests_per_second/);
    expect(refusal({ first_run_max_pages: 0 })).toMatch(/first_run_max_pages/);
    expect(refusal({ pages: 3 })).toMatch(/pages/);
    expect(refusal({}, { TIDEMARK_MERCARI_URL: "ftp://x" })).toMatch(/TIDEMARK_MERCARI_URL/);
  });

  it("a base URL with a user name or password is refused at load, the password never shown", () => {
    const fromEnv = refusal({}, { TIDEMARK_MERCARI_URL: "http://user:hunter2pw@127.0.0.1:1" });
    expect(fromEnv).toMatch(/TIDEMARK_MERCARI_URL.*user name or password/);
    expect(fromEnv).not.toContain("hunter2pw");
    const fromFile = refusal({ base_url: "https://me:hunter2pw@proxy.local/" });
    expect(fromFile).toMatch(/pipelines\.mercari\.base_url/);
    expect(fromFile).not.toContain("hunter2pw");
    // An @ after the host (a path or query) is no credential.
    const fine = resolveMercariSettings(cfg({ base_url: "http://proxy.local/a@b" }), {});
    expect(fine.baseUrl).toBe("http://proxy.local/a@b");
  });
});
