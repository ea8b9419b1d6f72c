// The package's public entries: reachable by name, nothing else reachable through `exports`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as contract from "tidemark";
import * as kit from "tidemark/kit";
import * as testing from "tidemark/testing";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/engine/errors.ts";
import { staticExternalImports } from "../../src/testing/static-imports.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What Node's resolver makes of each specifier from inside the package (self-reference). */
function nodeResolve(specifiers: string[]): string[] {
  const script = `for (const s of JSON.parse(process.argv[1])) { try { console.log(import.meta.resolve(s)); } catch (e) { console.log(e.code); } }`;
  const out = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", script, JSON.stringify(specifiers)],
    { cwd: ROOT, encoding: "utf8" },
  );
  return out.trim().split("\n");
}

describe("public entries", () => {
  it("each entry is imported by its package name and gives the engine's own classes", () => {
    expect(contract.definePipeline).toBeTypeOf("function");
    expect(contract.defineJobType).toBeTypeOf("function");
    expect(contract.defineQueueHandler).toBeTypeOf("function");
    expect(contract.UsageError).toBe(UsageError);
    expect(contract.ExitCode).toBeDefined();
    expect(kit.HttpClient).toBeTypeOf("function");
    expect(kit.parseJsonBody).toBeTypeOf("function");
    expect(kit.startFakeServer).toBeTypeOf("function");
    expect(kit.runEntityEtl).toBeTypeOf("function");
    expect(kit.contentHash).toBeTypeOf("function");
    expect(testing.describePipelineConformance).toBeTypeOf("function");
    expect(testing.describeEachDialect).toBeTypeOf("function");
    expect(new testing.ManualClock("2026-01-01T00:00:00Z").now().toISOString()).toBe(
      "2026-01-01T00:00:00.000Z",
    );
  });

  it("internals stay private: no run executor, job service, queue driver or migrator", () => {
    const names = [...Object.keys(contract), ...Object.keys(kit), ...Object.keys(testing)];
    for (const internal of ["executeRun", "JobService", "openQueue", "migrateToLatest", "Registry"])
      expect(names).not.toContain(internal);
  });

  it("`tidemark` loads nothing but zod and Node's modules; only `tidemark/testing` loads vitest", async () => {
    const contractLoads = await staticExternalImports(`${ROOT}src/sdk/index.ts`);
    expect(contractLoads.filter((m) => m !== "zod" && !m.startsWith("node:"))).toEqual([]);
    expect(await staticExternalImports(`${ROOT}src/sdk/kit.ts`)).not.toContain("vitest");
    expect(await staticExternalImports(`${ROOT}src/sdk/testing.ts`)).toContain("vitest");
  });

  it("package.json exports the three entries into dist/ and refuses deep imports", () => {
    const resolved = nodeResolve([
      "tidemark",
      "tidemark/kit",
      "tidemark/testing",
      "tidemark/package.json",
      "tidemark/src/engine/errors.ts",
      "tidemark/dist/main.js",
      "tidemark/src/sdk/kit.ts",
      "tidemark/engine",
    ]);
    expect(
      resolved.slice(0, 4).map((u) => u.replace(/^file:\/\/.*?\/(dist|package)/, "$1")),
    ).toEqual(["dist/sdk/index.js", "dist/sdk/kit.js", "dist/sdk/testing.js", "package.json"]);
    expect(resolved.slice(4)).toEqual(Array(4).fill("ERR_PACKAGE_PATH_NOT_EXPORTED"));
  });

  it("every entry ships its type declarations and vitest is an optional peer", () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8"));
    for (const key of [".", "./kit", "./testing"]) {
      expect(pkg.exports[key].types).toMatch(/^\.\/dist\/types\/sdk\/\w+\.d\.ts$/);
      expect(Object.keys(pkg.exports[key])[0]).toBe("types");
    }
    expect(pkg.peerDependenciesMeta.vitest.optional).toBe(true);
    expect(pkg.dependencies.vitest).toBeUndefined();
  });
});

it("no shipped module reads a test hook from the environment (tests inject their hooks)", () => {
  const src = `${ROOT}src`;
  const shipped = readdirSync(src, { recursive: true, encoding: "utf8" }).filter(
    (f) => f.endsWith(".ts") && !/\.test\.ts$|(^|\/)testing\//.test(f),
  );
  const readers = shipped.filter((f) =>
    /TIDEMARK_TEST_[A-Z_]+|TIDEMARK_SNAPSHOTS_(CRASH|PAUSE)_AT/.test(
      readFileSync(`${src}/${f}`, "utf8").replace(/TIDEMARK_TEST_PG_URL/g, ""),
    ),
  );
  expect(readers).toEqual([]);
});
