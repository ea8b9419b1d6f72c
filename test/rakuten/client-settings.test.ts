import { ConfigError } from "tidemark";
import { describe, expect, it } from "vitest";
import { rakutenSettingsOf } from "./support/settings.ts";

function resolve(section: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = {}) {
  return rakutenSettingsOf(section, env, "tidemark.yaml");
}

describe("pipelines.rakuten settings", () => {
  it("defaults to the new host, formatVersion 2, 1 request/second, local embeddings", () => {
    const s = resolve(undefined);
    expect(s).toMatchObject({
      baseUrl: "https://openapi.rakuten.co.jp",
      hostStyle: "openapi",
      applicationIdEnv: "RAKUTEN_APPLICATION_ID",
      accessKeyEnv: "RAKUTEN_ACCESS_KEY",
      accessKeyIn: "query",
      formatVersion: 2,
      requestsPerSecond: 1,
      embeddings: {
        provider: "local",
        baseUrl: undefined,
        model: "local-char-ngram-v1",
        apiKeyEnv: "OPENAI_API_KEY",
        batchSize: 64,
        dimensions: 256,
      },
    });
  });

  it("takes the base URL from TIDEMARK_RAKUTEN_URL over the file, unless use_env is false", () => {
    const env = { TIDEMARK_RAKUTEN_URL: "http://127.0.0.1:4010/" };
    expect(resolve({ base_url: "https://proxy.example.com" }, env).baseUrl).toBe(
      "http://127.0.0.1:4010",
    );
    expect(resolve({ base_url: "https://proxy.example.com", use_env: false }, env).baseUrl).toBe(
      "https://proxy.example.com",
    );
  });

  it("recognises the old host's root and its paths", () => {
    expect(resolve({ base_url: "https://app.rakuten.co.jp/services/api" }).hostStyle).toBe(
      "legacy",
    );
    expect(resolve({ base_url: "http://fake", host_style: "legacy" }).hostStyle).toBe("legacy");
  });

  it("rejects bad values naming the key", () => {
    expect(() => resolve({ format_version: 3 })).toThrow(ConfigError);
    expect(() => resolve({ format_version: 3 })).toThrow(/pipelines\.rakuten\.format_version/);
    expect(() => resolve({ requests_per_second: 0 })).toThrow(/requests_per_second/);
    expect(() => resolve({ access_key_env: "abc-def" })).toThrow(/access_key_env/);
    expect(() => resolve({ applicationId: "x" })).toThrow(/applicationId/);
  });

  it("needs a base URL for the openai-compatible provider, from the file or the variable", () => {
    expect(() => resolve({ embeddings: { provider: "openai-compatible" } })).toThrow(
      /embeddings\.base_url/,
    );
    const s = resolve(
      { embeddings: { provider: "openai-compatible" } },
      { TIDEMARK_EMBEDDINGS_URL: "http://127.0.0.1:11434" },
    );
    expect(s.embeddings).toMatchObject({
      baseUrl: "http://127.0.0.1:11434",
      model: "text-embedding-3-small",
    });
  });
});
