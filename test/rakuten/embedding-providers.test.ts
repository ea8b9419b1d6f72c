import { ConfigError } from "tidemark";
import { BadPayloadError } from "tidemark/kit";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { startFakeServer } from "../../src/engine/fakes/fake-server.ts";
import { createLogger, silentLogger } from "../../src/infra/logging/logger.ts";
import {
  type EmbeddingsFake,
  startEmbeddingsFake,
} from "../../src/pipelines/rakuten/fake/embeddings-fake.ts";
import {
  cosineSimilarity,
  parseVector,
} from "../../src/pipelines/rakuten/stages/embeddings/cosine.ts";
import { createEmbeddingProvider } from "../../src/pipelines/rakuten/stages/embeddings/create-provider.ts";
import {
  lexicalEmbedding,
  lexicalNormalize,
} from "../../src/pipelines/rakuten/stages/embeddings/lexical-embedding.ts";
import type { EmbeddingsConfig } from "../../src/pipelines/rakuten/stages/embeddings/provider.ts";

const local: EmbeddingsConfig = {
  provider: "local",
  baseUrl: undefined,
  model: "local-char-ngram-v1",
  apiKeyEnv: "OPENAI_API_KEY",
  batchSize: 64,
  dimensions: 256,
};

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe("local lexical embedding", () => {
  it("is deterministic, of the configured length and unit length", () => {
    const a = lexicalEmbedding("今治タオル ギフトセット", 256);
    expect(a).toHaveLength(256);
    expect(norm(a)).toBeCloseTo(1, 10);
    expect(lexicalEmbedding("今治タオル ギフトセット", 256)).toEqual(a);
    expect(lexicalEmbedding("今治タオル", 64)).toHaveLength(64);
  });

  it("works on the NFKC-normalised, lower-cased text with white space collapsed", () => {
    expect(lexicalNormalize("  ＴＯＷＥＬ\u3000ｷﾞﾌﾄ  ")).toBe("towel ギフト");
    expect(lexicalEmbedding("ＴＯＷＥＬ　ｷﾞﾌﾄ", 128)).toEqual(lexicalEmbedding("towel ギフト", 128));
  });

  it("puts texts sharing character sequences closer than unrelated ones (lexical, not semantic)", () => {
    const towel = lexicalEmbedding("今治タオル ハンドタオル 3枚セット", 256);
    const towel2 = lexicalEmbedding("今治タオル フェイスタオル 2枚セット", 256);
    const coffee = lexicalEmbedding("ドリップコーヒー 詰め合わせ", 256);
    expect(cosineSimilarity(towel, towel2)).toBeGreaterThan(0.5);
    expect(cosineSimilarity(towel, coffee)).toBeLessThan(cosineSimilarity(towel, towel2));
    expect(cosineSimilarity(towel, coffee)).toBeLessThan(0.2);
  });

  it("gives all zeros for a text without characters and refuses a bad length", () => {
    expect(lexicalEmbedding("   ", 16)).toEqual(new Array(16).fill(0));
    expect(() => lexicalEmbedding("x", 0)).toThrow(/positive integer/);
  });

  it("is the local provider, which names itself lexical and needs no network", async () => {
    const p = createEmbeddingProvider(local, {}, silentLogger());
    expect(p.kind).toBe("lexical");
    expect(p.model).toBe("local-char-ngram-v1");
    expect(p.dimensions).toBe(256);
    const [v] = await p.embed(["ギフト"]);
    expect(v).toEqual(lexicalEmbedding("ギフト", 256));
  });
});

describe("cosine similarity and stored vectors", () => {
  it("computes cosine, 0 for a zero vector, and refuses mismatched lengths", () => {
    expect(cosineSimilarity([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 2])).toBeCloseTo(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(() => cosineSimilarity([1], [1, 2])).toThrow(/differ in length/);
  });

  it("parses JSON text vectors and refuses malformed ones", () => {
    expect(parseVector("[0.5,-1]")).toEqual([0.5, -1]);
    expect(parseVector([1, 2])).toEqual([1, 2]);
    expect(() => parseVector('["a"]')).toThrow(/finite numbers/);
    expect(() => parseVector('{"a":1}')).toThrow(/finite numbers/);
  });
});

describe("openai-compatible provider against the embeddings fake", () => {
  let fake: EmbeddingsFake | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const remote = (url: string, extra: Partial<EmbeddingsConfig> = {}): EmbeddingsConfig => ({
    ...local,
    provider: "openai-compatible",
    baseUrl: url,
    model: "text-embedding-3-small",
    apiKeyEnv: "MY_EMBED_KEY",
    maxAttempts: 3,
    ...extra,
  });

  it("posts {model, input} with the bearer key from the named variable and keeps input order", async () => {
    fake = await startEmbeddingsFake({ knobs: { apiKey: "sk-secret-1", reverseOrder: true } });
    const p = createEmbeddingProvider(
      remote(fake.url),
      { MY_EMBED_KEY: "sk-secret-1" },
      silentLogger(),
    );
    expect(p.kind).toBe("semantic");
    const vectors = await p.embed(["タオル", "コーヒー", "お菓子"]);
    expect(vectors).toHaveLength(3);
    expect(vectors[1]).toEqual(lexicalEmbedding("コーヒー", 64));
    const req = fake.server.requests[0]!;
    expect(req.path).toBe("/v1/embeddings");
    expect(req.headers.authorization).toBe("Bearer sk-secret-1");
    expect(JSON.parse(req.body)).toEqual({
      model: "text-embedding-3-small",
      input: ["タオル", "コーヒー", "お菓子"],
    });
  });

  it("accepts a base URL ending in /v1 (OpenAI's spelling)", async () => {
    fake = await startEmbeddingsFake();
    const p = createEmbeddingProvider(remote(`${fake.url}/v1/`), {}, silentLogger());
    expect(await p.embed(["a"])).toHaveLength(1);
    expect(fake.server.requests[0]!.path).toBe("/v1/embeddings");
  });

  it("fails on a wrong key with the server's 401, without retrying or printing the key", async () => {
    fake = await startEmbeddingsFake({ knobs: { apiKey: "sk-right" } });
    const p = createEmbeddingProvider(
      remote(fake.url),
      { MY_EMBED_KEY: "sk-wrong-9" },
      silentLogger(),
    );
    const err = await p.embed(["a"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/refused the API key in \$MY_EMBED_KEY \(HTTP 401\)/);
    expect((err as Error).message).not.toContain("sk-wrong-9");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("masks a key the server quotes back in full, in the error and in the log line", async () => {
    const quoting = await startFakeServer(async (request: Request) => {
      const key = request.headers.get("authorization")?.replace(/^Bearer /, "");
      const body = { error: { message: `Incorrect API key provided: ${key}` } };
      return new Response(JSON.stringify(body), { status: 401 });
    });
    onTestFinished(() => quoting.close());
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", destination: { write: (l) => lines.push(l) } });
    const p = createEmbeddingProvider(
      remote(quoting.url),
      { MY_EMBED_KEY: "sk-quoted-back-4242" },
      logger,
    );
    const err = (await p.embed(["a"]).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ConfigError);
    const said = [err.message, (err.cause as Error).message, ...lines].join("\n");
    expect(said).toContain("Incorrect API key provided: [REDACTED]");
    expect(said).not.toContain("sk-quoted-back-4242");
  });

  it("retries 429 and 503 answers, then succeeds", async () => {
    fake = await startEmbeddingsFake();
    fake.server.faults.set({ statusSequence: [429, 503], retryAfter: 0 });
    const p = createEmbeddingProvider(remote(fake.url), {}, silentLogger());
    expect(await p.embed(["a", "b"])).toHaveLength(2);
    expect(fake.server.requests).toHaveLength(3);
  });

  it("refuses an answer missing a vector", async () => {
    fake = await startEmbeddingsFake({ knobs: { omitLastVector: true } });
    const p = createEmbeddingProvider(remote(fake.url), {}, silentLogger());
    await expect(p.embed(["a", "b"])).rejects.toThrow(BadPayloadError);
    await expect(p.embed(["a", "b"])).rejects.toThrow(/no vector for input 1/);
  });

  it("answers the fake's batch limit and unknown models like OpenAI", async () => {
    fake = await startEmbeddingsFake({ knobs: { maxBatchSize: 2, models: ["m1"] } });
    const p = createEmbeddingProvider(remote(fake.url, { model: "m1" }), {}, silentLogger());
    await expect(p.embed(["a", "b", "c"])).rejects.toThrow(/at most 2 items/);
    const other = createEmbeddingProvider(remote(fake.url, { model: "m2" }), {}, silentLogger());
    await expect(other.embed(["a"])).rejects.toThrow(/answered 404 for model "m2"/);
  });

  it("needs a base URL", () => {
    expect(() =>
      createEmbeddingProvider(remote("x", { baseUrl: undefined }), {}, silentLogger()),
    ).toThrow(ConfigError);
  });
});
