// `tidemark rakuten similar <itemCode> [-k 10]`: nearest items by cosine similarity, both dialects.

import { NotFoundError } from "tidemark";
import { describe, expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { openDatabase, typed } from "../../src/infra/db/open-database.ts";
import { findSimilar } from "../../src/pipelines/rakuten/commands/similar-command.ts";
import { parseK, similarCommand } from "../../src/pipelines/rakuten/commands.ts";
import { rakutenPipeline } from "../../src/pipelines/rakuten/index.ts";
import type { RakutenTables } from "../../src/pipelines/rakuten/tables.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { openRakutenRuntime } from "./support/domain-runtime.ts";
import { seedCatalogue } from "./support/embedding-seed.ts";

/** The pipeline with `rakuten similar` mounted (whether or not commands.ts lists it yet). */
function registry(): Registry {
  const listed = rakutenPipeline.commands?.some((c) => c.path.join(" ") === "rakuten similar");
  return new Registry([
    listed
      ? rakutenPipeline
      : { ...rakutenPipeline, commands: [...(rakutenPipeline.commands ?? []), similarCommand] },
  ]);
}

describe("rakuten similar: -k", () => {
  it("defaults to 10 and accepts 1 to 1000 only", () => {
    expect(parseK(undefined)).toBe(10);
    expect(parseK("3")).toBe(3);
    for (const bad of ["0", "-1", "1.5", "x", "1001"])
      expect(() => parseK(bad)).toThrow(/-k must be/);
  });
});

describeEachDialect("rakuten similar", (h) => {
  it("ranks the other items by cosine similarity of their embeddings", async () => {
    const t = await openRakutenRuntime(h, { pipelines: { rakuten: { use_env: false } } });
    await seedCatalogue(t.db);
    await t.run("rakuten.embedding-source");
    await t.run("rakuten.embedding");
    const r = await findSimilar(t.db, "shop-a:1", 10);
    expect(r).toMatchObject({
      item_code: "shop-a:1",
      model: "local-char-ngram-v1",
      kind: "lexical",
      compared: 2,
    });
    expect(r.items.map((i) => i.item_code)).toEqual(["shop-a:2", "shop-b:1"]);
    expect(r.items[0]!.similarity).toBeGreaterThan(r.items[1]!.similarity);
    expect(r.items[0]).toMatchObject({ rank: 1, item_name: "今治タオル フェイスタオル 2枚セット" });
    expect((await findSimilar(t.db, "shop-a:1", 1)).items).toHaveLength(1);

    // Only embeddings of the same model are compared.
    await t.db
      .updateTable("apl.item_embedding")
      .set({ model: "other" })
      .where("item_code", "=", "shop-b:1")
      .execute();
    expect((await findSimilar(t.db, "shop-a:1", 10)).items.map((i) => i.item_code)).toEqual([
      "shop-a:2",
    ]);
  });

  it("refuses an unknown item and an item not embedded yet (exit 2)", async () => {
    const t = await openRakutenRuntime(h, { pipelines: { rakuten: { use_env: false } } });
    await seedCatalogue(t.db);
    await expect(findSimilar(t.db, "nope:1", 5)).rejects.toThrow(NotFoundError);
    await expect(findSimilar(t.db, "nope:1", 5)).rejects.toThrow(/unknown item "nope:1"/);
    await expect(findSimilar(t.db, "shop-a:1", 5)).rejects.toThrow(/has no embedding yet/);
  });

  it("prints a table or JSON through the CLI; bad -k and unknown items exit 2", async () => {
    const { cwd, env, target } = await cliEnv(h, "tm-similar-");
    const cli = (argv: string[]) => runCli(argv, { cwd, env, registry: registry() });
    expect((await cli(["db", "migrate"])).code).toBe(0);
    const db = await openDatabase(target);
    try {
      const k = typed<RakutenTables>(db);
      await seedCatalogue(k);
      const { lexicalEmbedding } = await import(
        "../../src/pipelines/rakuten/stages/embeddings/lexical-embedding.ts"
      );
      const items = await k
        .selectFrom("apl.item")
        .select(["rakuten_item_code", "item_name"])
        .execute();
      await k
        .insertInto("apl.item_embedding")
        .values(
          items.map((i) => ({
            item_code: i.rakuten_item_code,
            model: "local-char-ngram-v1",
            source_hash: "h",
            dimensions: 64,
            vector: JSON.stringify(lexicalEmbedding(i.item_name ?? "", 64)),
            created_at: "2026-05-20T00:00:00.000Z",
            updated_at: "2026-05-20T00:00:00.000Z",
          })),
        )
        .execute();
    } finally {
      await db.close();
    }

    const table = await cli(["rakuten", "similar", "shop-a:1", "-k", "1"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(
      "model local-char-ngram-v1 (lexical: shared character sequences",
    );
    expect(table.stdout).toMatch(/rank\s+similarity\s+item_code\s+price\s+name/);
    expect(table.stdout).toMatch(/1\s+0\.\d{4}\s+shop-a:2/);
    expect(table.stdout).not.toContain("shop-b:1");

    const json = await cli(["rakuten", "similar", "shop-b:1", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { items: Array<{ item_code: string }> };
    expect(parsed.items.map((i) => i.item_code).sort()).toEqual(["shop-a:1", "shop-a:2"]);

    const badK = await cli(["rakuten", "similar", "shop-a:1", "-k", "0"]);
    expect(badK.code).toBe(2);
    expect(badK.stderr).toContain("-k must be an integer from 1 to 1000");
    const unknown = await cli(["rakuten", "similar", "nope:9"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown item "nope:9"');
  });
});
