import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineJobType, definePipeline } from "../../src/engine/registry/pipeline-definition.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { cliEnv } from "./cli-env.ts";

/** A job type whose params use every feature `job describe` renders. */
const digestType = defineJobType({
  name: "docs.digest",
  description: "mails a digest of new items",
  params: z
    .object({
      feeds: z.array(z.url()).min(1).max(5).describe("feed URLs to read"),
      max_items: z.number().int().min(1).max(100).default(20).meta({ description: "per run" }),
      order: z.enum(["newest", "oldest"]).default("newest"),
      mail: z.object({ to: z.email().describe("who gets the digest"), subject: z.string() }),
      extra: z.object({ tag: z.string() }).optional(),
    })
    .strict(),
  example: { feeds: ["https://example.com/feed"], mail: { to: "me@example.com", subject: "S" } },
  async run() {
    return { summary: {} };
  },
});

const docsRegistry = () =>
  new Registry([definePipeline({ name: "docs", description: "docs", jobTypes: [digestType] })]);

/** The YAML block and the inline command `job describe` prints. */
function parseDescribe(stdout: string): { yaml: string; inlineParams: string } {
  const yaml = /Example params file \(params\.yaml\):\n\n((?: {2}.*\n)+)/.exec(stdout)?.[1];
  const inline = / --params '(.*)'\n/.exec(stdout)?.[1];
  if (yaml === undefined || inline === undefined) throw new Error(`no example in:\n${stdout}`);
  return { yaml, inlineParams: inline.replaceAll("'\\''", "'") };
}

describe("tidemark job types / describe", () => {
  it("job types lists each type with its pipeline and points to job describe", async () => {
    const r = await runCli(["job", "types"], {
      cwd: testTempDir("tm-jd-"),
      registry: docsRegistry(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/TYPE\s+PIPELINE\s+DESCRIPTION\ndocs\.digest\s+docs\s+mails a digest/);
    expect(r.stdout).toContain("tidemark job describe <type>");
  });

  it("job types --json gives each type's params as JSON Schema and its example", async () => {
    const r = await runCli(["job", "types", "--json"], {
      cwd: testTempDir("tm-jd-"),
      registry: docsRegistry(),
    });
    const [t] = JSON.parse(r.stdout);
    expect(t).toMatchObject({
      name: "docs.digest",
      pipeline: "docs",
      description: "mails a digest of new items",
      example: digestType.example,
      params: {
        type: "object",
        required: ["feeds", "mail"],
        properties: { max_items: { default: 20, description: "per run" } },
      },
    });
  });

  it("job describe shows types, required params, defaults, descriptions and nested fields", async () => {
    const r = await runCli(["job", "describe", "docs.digest"], {
      cwd: testTempDir("tm-jd-"),
      registry: docsRegistry(),
    });
    expect(r.code, r.stderr).toBe(0);
    const row = (param: string) =>
      r.stdout.split("\n").find((l) => l.trim().startsWith(`${param} `));
    expect(row("feeds")).toMatch(/list \(1–5 items\) of uri\s+yes\s+feed URLs to read/);
    expect(row("max_items")).toMatch(/integer \(1–100\)\s+20\s+per run/);
    expect(row("order")).toMatch(/newest \| oldest\s+newest/);
    expect(row("mail.to")).toMatch(/email\s+yes\s+who gets the digest/);
    // A field of an optional group is not required, even if the group needs it.
    expect(row("extra.tag")).toMatch(/^\s*extra\.tag\s+string\s*$/);
  });

  it("job describe --json is the JSON Schema and example", async () => {
    const r = await runCli(["job", "describe", "docs.digest", "--json"], {
      cwd: testTempDir("tm-jd-"),
      registry: docsRegistry(),
    });
    const doc = JSON.parse(r.stdout);
    expect(doc.example).toEqual(digestType.example);
    expect(doc.params.properties.order).toMatchObject({
      enum: ["newest", "oldest"],
      default: "newest",
    });
  });

  it("an unknown type exits 2 listing the known types", async () => {
    const r = await runCli(["job", "describe", "docs.nope"], {
      cwd: testTempDir("tm-jd-"),
      registry: docsRegistry(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('tidemark: unknown job type "docs.nope"; known types: docs.digest\n');
    expect(r.stdout).toBe("");
  });

  it("job add --help points to job describe", async () => {
    const r = await runCli(["job", "add", "--help"], { cwd: testTempDir("tm-jd-") });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("tidemark job describe <type>");
  });
});

describeEachDialect("job describe's example, copied as printed", (h) => {
  const registry = new Registry(pipelines);
  it.each(registry.jobTypeNames())("adds a %s job from the YAML file and inline", async (type) => {
    const o = { ...(await cliEnv(h)), registry };
    const described = await runCli(["job", "describe", type], o);
    expect(described.code, described.stderr).toBe(0);
    const { yaml, inlineParams } = parseDescribe(described.stdout);
    writeFileSync(path.join(o.cwd, "params.yaml"), yaml);
    let r = await runCli(
      ["job", "add", "from-file", "--type", type, "--params-file", "params.yaml"],
      o,
    );
    expect(r.code, r.stderr).toBe(0);
    r = await runCli(["job", "add", "inline", "--type", type, "--params", inlineParams], o);
    expect(r.code, r.stderr).toBe(0);
    const jobs = JSON.parse((await runCli(["job", "ls", "--json"], o)).stdout);
    expect(jobs[0].params).toEqual(jobs[1].params);
  });
});
