// rakuten.embedding-source and rakuten.embedding on both dialects: the diff rules of docs/pipelines/rakuten.md (Embeddings).
import { describe, expect, it, onTestFinished } from "vitest";
import {
  type EmbeddingsFake,
  startEmbeddingsFake,
} from "../../src/pipelines/rakuten/fake/embeddings-fake.ts";
import { EMBEDDING_APPLY_VERSION } from "../../src/pipelines/rakuten/jobs/embedding-job.ts";
import { lexicalEmbedding } from "../../src/pipelines/rakuten/stages/embeddings/lexical-embedding.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenRuntime } from "./support/domain-runtime.ts";
import { seedCatalogue } from "./support/embedding-seed.ts";

async function open(h: Parameters<typeof openRakutenRuntime>[0], embeddings: object = {}) {
  const env = await openRakutenRuntime(h, {
    pipelines: { rakuten: { use_env: false, embeddings } },
    environ: { MY_EMBED_KEY: "sk-test-key" },
  });
  await seedCatalogue(env.db);
  const sources = () =>
    env.db.selectFrom("apl.item_embedding_source").selectAll().orderBy("item_code").execute();
  const embeddings_ = () =>
    env.db.selectFrom("apl.item_embedding").selectAll().orderBy("item_code").execute();
  return { ...env, sources, embeddings: embeddings_ };
}

async function withFake(knobs: Parameters<typeof startEmbeddingsFake>[0] = {}) {
  const fake: EmbeddingsFake = await startEmbeddingsFake(knobs);
  onTestFinished(() => fake.close());
  return fake;
}

describeEachDialect("rakuten.embedding-source", (h) => {
  it("builds name, catch copy, genre, tags and the caption start; a rerun writes nothing", async () => {
    const t = await open(h);
    const first = await t.run("rakuten.embedding-source");
    expect(first.status, first.error ?? "").toBe("succeeded");
    expect(first.summary).toMatchObject({ items: 3, added: 3, changed: 0, written: 3 });
    const rows = await t.sources();
    expect(rows.map((r) => r.item_code)).toEqual(["shop-a:1", "shop-a:2", "shop-b:1"]);
    const lines = rows[0]!.source_text.split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "今治タオル ハンドタオル 3枚セット",
      "贈り物に",
      "ジャンル: タオル",
      "タグ: 綿100%、日本製",
    ]);
    expect(Array.from(lines[4]!)).toHaveLength(400);
    expect(rows[2]!.source_text).not.toContain("ジャンル");
    expect(rows[0]!.source_hash).toMatch(/^[0-9a-f]{64}$/);

    t.clock.advance(60_000);
    const again = await t.run("rakuten.embedding-source");
    expect(again.summary).toMatchObject({ items: 3, unchanged: 3, written: 0 });
    expect(await t.sources()).toEqual(rows);
  });

  it("rewrites only the item whose text changed; a dry run writes nothing", async () => {
    const t = await open(h);
    await t.run("rakuten.embedding-source");
    const before = await t.sources();
    await t.db
      .updateTable("apl.item")
      .set({ item_name: "今治タオル バスタオル" })
      .where("rakuten_item_code", "=", "shop-a:2")
      .execute();
    t.clock.advance(60_000);
    const dry = await t.run("rakuten.embedding-source", {}, { dryRun: true });
    expect(dry.summary).toMatchObject({ changed: 1, written: 0, would_write: 1, dry_run: true });
    expect(await t.sources()).toEqual(before);

    const real = await t.run("rakuten.embedding-source");
    expect(real.summary).toMatchObject({ unchanged: 2, changed: 1, written: 1 });
    const after = await t.sources();
    expect(after[1]!.source_text).toMatch(/^今治タオル バスタオル\n/);
    expect(after[1]!.source_hash).not.toBe(before[1]!.source_hash);
    expect(after[1]!.updated_at).not.toBe(before[1]!.updated_at);
    expect([after[0], after[2]]).toEqual([before[0], before[2]]);
  });

  it("is skipped, writing nothing, when there are no items", async () => {
    const env = await openRakutenRuntime(h, { pipelines: { rakuten: { use_env: false } } });
    const r = await env.run("rakuten.embedding-source");
    expect(r.status).toBe("skipped");
  });
});

describeEachDialect("rakuten.embedding", (h) => {
  it("local: embeds the missing items, then nothing, then only a changed source", async () => {
    const t = await open(h, { dimensions: 32 });
    await t.run("rakuten.embedding-source");
    const first = await t.run("rakuten.embedding");
    expect(first.status, first.error ?? "").toBe("succeeded");
    expect(first.summary).toMatchObject({
      provider: "local",
      kind: "lexical",
      model: "local-char-ngram-v1",
      total_targets: 3,
      missing: 3,
      embedded: 3,
      failure_count: 0,
    });
    const rows = await t.embeddings();
    const sources = await t.sources();
    expect(rows.map((r) => [r.model, r.dimensions, r.source_hash])).toEqual(
      sources.map((s) => ["local-char-ngram-v1", 32, s.source_hash]),
    );
    expect(JSON.parse(rows[0]!.vector)).toEqual(
      lexicalEmbedding(sources[0]!.source_text, 32).map((x) => expect.closeTo(x, 12)),
    );

    t.clock.advance(60_000);
    const none = await t.run("rakuten.embedding");
    expect(none.status).toBe("skipped");
    expect(none.summary).toMatchObject({ total_targets: 0, embedded: 0 });
    expect(await t.embeddings()).toEqual(rows);

    await t.db
      .updateTable("apl.item")
      .set({ catchcopy: "母の日に" })
      .where("rakuten_item_code", "=", "shop-b:1")
      .execute();
    await t.run("rakuten.embedding-source");
    const one = await t.run("rakuten.embedding");
    expect(one.summary).toMatchObject({ total_targets: 1, source_changed: 1, embedded: 1 });
    const after = await t.embeddings();
    expect(after[2]!.source_hash).not.toBe(rows[2]!.source_hash);
    expect(after[2]!.created_at).toBe(rows[2]!.created_at);
    expect(after.slice(0, 2)).toEqual(rows.slice(0, 2));
  });

  it("re-embeds everything when the model or the local dimensions change; a dry run writes nothing", async () => {
    const t = await open(h, { dimensions: 32 });
    await t.run("rakuten.embedding-source");
    await t.run("rakuten.embedding");
    const before = await t.embeddings();
    t.reconfigure({ use_env: false, embeddings: { dimensions: 16 } });
    const dry = await t.run("rakuten.embedding", {}, { dryRun: true });
    expect(dry.summary).toMatchObject({ model_changed: 3, would_embed: 3, embedded: 0 });
    expect(await t.embeddings()).toEqual(before);
    const dims = await t.run("rakuten.embedding");
    expect(dims.summary).toMatchObject({ model_changed: 3, embedded: 3 });
    expect((await t.embeddings()).map((r) => r.dimensions)).toEqual([16, 16, 16]);

    t.reconfigure({ use_env: false, embeddings: { dimensions: 16, model: "local-char-ngram-v2" } });
    const model = await t.run("rakuten.embedding", {}, { limit: 2 });
    expect(model.summary).toMatchObject({ total_targets: 2, model_changed: 2, embedded: 2 });
    expect((await t.embeddings()).map((r) => r.model)).toEqual([
      "local-char-ngram-v2",
      "local-char-ngram-v2",
      "local-char-ngram-v1",
    ]);
  });

  it("re-embeds the items stored under another EMBEDDING_APPLY_VERSION, then nothing", async () => {
    const t = await open(h);
    await t.run("rakuten.embedding-source");
    await t.run("rakuten.embedding");
    const before = await t.embeddings();
    expect(before.map((r) => r.applied_version)).toEqual([
      EMBEDDING_APPLY_VERSION,
      EMBEDDING_APPLY_VERSION,
      EMBEDDING_APPLY_VERSION,
    ]);
    // Two vectors stored by an older version, as after a bump of the constant.
    await t.db
      .updateTable("apl.item_embedding")
      .set({ applied_version: EMBEDDING_APPLY_VERSION - 1 })
      .where("item_code", "<>", before[0]!.item_code)
      .execute();
    const dry = await t.run("rakuten.embedding", {}, { dryRun: true });
    expect(dry.summary).toMatchObject({ version_changed: 2, would_embed: 2, embedded: 0 });
    const bumped = await t.run("rakuten.embedding");
    expect(bumped.summary).toMatchObject({
      total_targets: 2,
      version_changed: 2,
      missing: 0,
      model_changed: 0,
      embedded: 2,
      apply_version: EMBEDDING_APPLY_VERSION,
    });
    const after = await t.embeddings();
    expect(after.map((r) => r.applied_version)).toEqual(before.map((r) => r.applied_version));
    expect(after[0]!.updated_at).toBe(before[0]!.updated_at);
    expect((await t.run("rakuten.embedding")).status).toBe("skipped");
  });

  it("openai-compatible: batches of batch_size with the key, vectors and model name stored", async () => {
    const fake = await withFake({ knobs: { apiKey: "sk-test-key", dimensions: 8 } });
    const t = await open(h, {
      provider: "openai-compatible",
      base_url: fake.url,
      model: "text-embedding-3-small",
      api_key_env: "MY_EMBED_KEY",
      batch_size: 2,
    });
    await t.run("rakuten.embedding-source");
    const r = await t.run("rakuten.embedding");
    expect(r.status, r.error ?? "").toBe("succeeded");
    expect(r.summary).toMatchObject({ kind: "semantic", embedded: 3, batches: 2 });
    expect(fake.counters.batchSizes).toEqual([2, 1]);
    const rows = await t.embeddings();
    expect(rows.map((x) => [x.model, x.dimensions])).toEqual(
      Array(3).fill(["text-embedding-3-small", 8]),
    );
    expect(JSON.stringify(r.summary)).not.toContain("sk-test-key");
  });

  it("openai-compatible: a refused key fails the run at once and writes nothing", async () => {
    const fake = await withFake({ knobs: { apiKey: "sk-other" } });
    const t = await open(h, {
      provider: "openai-compatible",
      base_url: fake.url,
      api_key_env: "MY_EMBED_KEY",
    });
    await t.run("rakuten.embedding-source");
    const r = await t.run("rakuten.embedding");
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/refused the API key in \$MY_EMBED_KEY \(HTTP 401\)/);
    expect(r.error).not.toContain("sk-test-key");
    expect(await t.embeddings()).toEqual([]);
  });

  it("openai-compatible: a failing batch is its items' failure; the rerun embeds just those", async () => {
    const fake = await withFake();
    const t = await open(h, {
      provider: "openai-compatible",
      base_url: fake.url,
      batch_size: 2,
    });
    t.reconfigure({ ...(t.rt.config.pipelines.rakuten as object), retry_max_attempts: 1 });
    await t.run("rakuten.embedding-source");
    fake.server.faults.set({ statusSequence: [500] });
    const r = await t.run("rakuten.embedding", { max_failure_rate: 0.5 });
    expect(r.status).toBe("failed");
    expect(r.summary).toMatchObject({ total_targets: 3, failure_count: 2, embedded: 1 });
    expect(r.summary.failures).toEqual([
      expect.objectContaining({ target: "shop-a:1", kind: "embed" }),
      expect.objectContaining({ target: "shop-a:2", kind: "embed" }),
    ]);
    expect((await t.embeddings()).map((e) => e.item_code)).toEqual(["shop-b:1"]);
    const again = await t.run("rakuten.embedding");
    expect(again.summary).toMatchObject({ total_targets: 2, missing: 2, embedded: 2 });
  });
});

describeEachDialect("rakuten.embedding: fencing", (h) => {
  it("a run that lost its lease while the server answered writes no embedding", async () => {
    const fake = await withFake();
    const t = await open(h, { provider: "openai-compatible", base_url: fake.url });
    await t.run("rakuten.embedding-source");
    fake.server.faults.set({ delayMs: 1500 });
    const running = t.run("rakuten.embedding", {}, { leaseTtlMs: 60_000 });
    while (fake.server.stats.inFlight === 0) await new Promise((r) => setTimeout(r, 20));
    t.clock.advance(61_000);
    const taken = await t.rt.leases.tryAcquire("job:rakuten-embedding", "run-b", 60_000);
    expect(taken?.holder).toBe("run-b");
    const report = await running;
    expect(report.status).toBe("abandoned");
    expect(await t.embeddings()).toEqual([]);
  });
});

describe("embedding jobs are registered", () => {
  it("as rakuten.embedding-source and rakuten.embedding", async () => {
    const { rakutenPipeline } = await import("../../src/pipelines/rakuten/index.ts");
    const names = rakutenPipeline.jobTypes.map((j) => j.name);
    expect(names).toContain("rakuten.embedding-source");
    expect(names).toContain("rakuten.embedding");
  });
});
