import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HttpError } from "../engine/http/http-errors.ts";
import { JobService } from "../engine/jobs/job-service.ts";
import { TidemarkMetrics } from "../engine/metrics/tidemark-metrics.ts";
import type { Queue } from "../engine/queue/queue.ts";
import { definePipeline } from "../engine/registry/pipeline-definition.ts";
import { Registry } from "../engine/registry/registry.ts";
import { executeRun } from "../engine/runs/job-runner.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";
import { silentLogger } from "../infra/logging/logger.ts";
import { describeEachDialect } from "../testing/dialects.ts";
import { ManualClock } from "../testing/manual-clock.ts";
import { testPipeline } from "../testing/test-pipeline.ts";
import { openTestRuntime } from "../testing/test-runtime.ts";
import { createApp } from "./app.ts";
import type { QueuedRun, RunRequestOptions, ServerServices } from "./server-services.ts";

// Response bodies are checked with expect(); typing each one would only restate the schemas.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Body = any;
const read = async (res: Response | Promise<Response>): Promise<Body> => (await res).json();

const TOKEN = "t0ken-for-tests-0123456789";
const OTHER = "second-token-abcdefghijklmnop";
const auth = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

/** A pipeline that mounts one route, to prove pipelines can add theirs. */
const routedPipeline = definePipeline({
  name: "routed",
  description: "pipeline with an HTTP route",
  jobTypes: [],
  routes: [
    {
      method: "get",
      path: "/hello",
      summary: "hi",
      response: z.object({ hi: z.string() }),
      handle: async () => ({ body: { hi: "there" } }),
    },
    {
      method: "post",
      path: "/things/{id}",
      summary: "make a thing",
      params: z.object({ id: z.coerce.number().int() }),
      body: z.object({ upstream: z.enum(["ok", "down"]) }),
      response: z.object({ id: z.number() }),
      status: 201,
      errors: { 502: { description: "the outside API failed" } },
      handle: async ({ params, body }) => {
        if ((body as { upstream: string }).upstream === "down") {
          throw new HttpError("HTTP 503", { url: "https://api.example/x", attempts: 4 }, true);
        }
        return { status: 201, body: { id: params.id } };
      },
    },
    {
      method: "get",
      path: "/db-down",
      summary: "a route whose database connection is refused",
      response: z.object({}),
      handle: async () => {
        const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
          code: "ECONNREFUSED",
        });
        throw new Error("query failed", { cause });
      },
    },
  ],
});

function fakeQueue(ok = true): Queue {
  return {
    engine: "embedded",
    stats: async () => {
      if (!ok) throw new Error("queue down");
      return [];
    },
  } as unknown as Queue;
}

interface Setup {
  rt: Runtime;
  metrics: TidemarkMetrics;
  requested: Array<{ job: string; options: RunRequestOptions }>;
  request(path: string, init?: RequestInit): Promise<Response>;
}

async function setup(
  rt: Runtime,
  over: Partial<Pick<ServerServices, "apiTokens" | "queue">> = {},
): Promise<Setup> {
  const metrics = new TidemarkMetrics();
  metrics.observeRuns(rt.events!);
  const requested: Setup["requested"] = [];
  const services: ServerServices = {
    runtime: rt,
    queue: fakeQueue(),
    metrics,
    apiTokens: [TOKEN, OTHER],
    async requestRun(job, options): Promise<QueuedRun> {
      requested.push({ job: job.name, options });
      return {
        runId: `${job.name}_20260115T093000Z_abcdef`,
        jobName: job.name,
        queue: "tidemark.run",
        messageId: "0190f0f0-0000-7000-8000-000000000001",
        requestedBy: "api",
        requestedAt: "2026-01-15T09:30:00.000Z",
        dryRun: options.dryRun ?? false,
        limit: options.limit ?? null,
      };
    },
    async findRequestedRun(runId) {
      if (runId !== "queued_20260115T093000Z_abcdef") return undefined;
      return {
        runId,
        jobName: "queued",
        status: "queued",
        messageId: "m1",
        requestedAt: "2026-01-15T09:30:00.000Z",
        dryRun: false,
        limit: null,
        attempts: 0,
        error: null,
      };
    },
    ...over,
  };
  const app = createApp(services, silentLogger());
  return { rt, metrics, requested, request: async (path, init) => app.request(path, init) };
}

async function addJob(rt: Runtime, name: string, over: Record<string, unknown> = {}) {
  await new JobService(rt.db, rt.registry, rt.clock).add({
    name,
    type: "test.echo",
    params: { message: "hi" },
    schedule: "0 3 * * *",
    timezone: "Asia/Tokyo",
    enabled: true,
    ...over,
  });
}

const postJson = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  body,
  headers: { ...auth(), "content-type": "application/json", ...headers },
});

describeEachDialect("HTTP API", (h) => {
  it("answers a missing or wrong token with 401 JSON on every route but /healthz", async () => {
    const s = await setup(await openTestRuntime(h));
    for (const path of ["/api/jobs", "/api/runs", "/metrics", "/openapi.json", "/docs", "/nope"]) {
      const none = await s.request(path);
      expect(none.status, path).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe('Bearer realm="tidemark"');
      expect(await none.json()).toEqual({
        error: {
          code: "unauthorized",
          message: "missing bearer token (Authorization: Bearer <token>)",
        },
      });
      const wrong = await s.request(path, { headers: auth("not-the-token-0123456789") });
      expect(wrong.status, path).toBe(401);
      expect(await wrong.json()).toEqual({
        error: { code: "unauthorized", message: "invalid bearer token" },
      });
    }
    // A prefix of the token, other schemes and an empty bearer are all refused.
    for (const header of [`Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, "Bearer ", TOKEN]) {
      const res = await s.request("/api/jobs", { headers: { authorization: header } });
      expect(res.status, header).toBe(401);
    }
    const post = await s.request("/api/jobs/x/runs", { method: "POST" });
    expect(post.status).toBe(401);
    expect((await s.request("/api/jobs", { headers: auth() })).status).toBe(200);
    expect((await s.request("/api/jobs", { headers: auth(OTHER) })).status).toBe(200);
    expect(
      (await s.request("/api/jobs", { headers: { authorization: `bearer ${TOKEN}` } })).status,
    ).toBe(200);
    expect(s.requested).toEqual([]);
  });

  it("/healthz needs no token and reports database and queue", async () => {
    const rt = await openTestRuntime(h);
    const ok = await (await setup(rt)).request("/healthz");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      status: "ok",
      db: { ok: true },
      queue: { ok: true, engine: "embedded" },
    });
    const down = await (await setup(rt, { queue: fakeQueue(false) })).request("/healthz");
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "unavailable", queue: { ok: false } });
    const none = await (await setup(rt, { queue: undefined })).request("/healthz");
    expect(await none.json()).toMatchObject({ queue: { ok: false, engine: null } });
  });

  it("lists and shows jobs; an unknown job is 404 JSON", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const s = await setup(rt);
    await addJob(rt, "nightly");
    await addJob(rt, "manual", { schedule: null });
    const list = await read(s.request("/api/jobs", { headers: auth() }));
    expect(list.jobs.map((j: { name: string }) => j.name)).toEqual(["manual", "nightly"]);
    expect(list.jobs[1]).toMatchObject({
      name: "nightly",
      type: "test.echo",
      params: { message: "hi" },
      schedule: "0 3 * * *",
      timezone: "Asia/Tokyo",
      enabled: true,
      // 03:00 in Tokyo = 18:00 UTC the day before.
      nextOccurrenceAt: "2026-01-15T18:00:00.000Z",
    });
    expect(list.jobs[0].nextOccurrenceAt).toBeNull();

    let one = await read(s.request("/api/jobs/nightly", { headers: auth() }));
    expect(one).toMatchObject({ name: "nightly", lastRun: null });
    const report = await executeRun(rt, {
      jobName: "nightly",
      jobType: "test.echo",
      params: { message: "x" },
    });
    one = await read(s.request("/api/jobs/nightly", { headers: auth() }));
    expect(one.lastRun).toMatchObject({ runId: report.runId, status: "succeeded" });

    const missing = await s.request("/api/jobs/nope", { headers: auth() });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: "not_found", message: 'unknown job "nope"' },
    });
  });

  it("POST /api/jobs/{name}/runs queues a run: 202 with its run id and Location", async () => {
    const rt = await openTestRuntime(h);
    const s = await setup(rt);
    await addJob(rt, "nightly");
    const res = await s.request("/api/jobs/nightly/runs", postJson('{"dryRun":true,"limit":5}'));
    expect(res.status).toBe(202);
    expect(res.headers.get("location")).toBe("/api/runs/nightly_20260115T093000Z_abcdef");
    expect(await res.json()).toEqual({
      runId: "nightly_20260115T093000Z_abcdef",
      run_id: "nightly_20260115T093000Z_abcdef",
      messageId: "0190f0f0-0000-7000-8000-000000000001",
      jobName: "nightly",
      status: "queued",
      dryRun: true,
      limit: 5,
    });
    const bare = await s.request("/api/jobs/nightly/runs", { method: "POST", headers: auth() });
    expect(bare.status).toBe(202);
    expect(await bare.json()).toMatchObject({ dryRun: false, limit: null });
    expect(s.requested).toEqual([
      { job: "nightly", options: { dryRun: true, limit: 5 } },
      { job: "nightly", options: { dryRun: undefined, limit: undefined } },
    ]);
  });

  it("an empty body labelled JSON is read as no body (curl -H 'Content-Type: application/json')", async () => {
    const rt = await openTestRuntime(h);
    const s = await setup(rt);
    await addJob(rt, "nightly");
    for (const body of ["", " \n"]) {
      const res = await s.request("/api/jobs/nightly/runs", postJson(body));
      expect(res.status, await res.clone().text()).toBe(202);
      expect(await res.json()).toMatchObject({ dryRun: false, limit: null });
    }
    expect(s.requested).toHaveLength(2);
  });

  it("a malformed or invalid body is 400 JSON with the zod issues; nothing is queued", async () => {
    const rt = await openTestRuntime(h);
    const s = await setup(rt);
    await addJob(rt, "nightly");
    const malformed = await s.request("/api/jobs/nightly/runs", postJson('{"dryRun": tru'));
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      error: { code: "invalid_json", message: "Malformed JSON in request body" },
    });

    const invalid = await s.request(
      "/api/jobs/nightly/runs",
      postJson('{"dryRun":"yes","limit":-1,"extra":1}'),
    );
    expect(invalid.status).toBe(400);
    const body = await read(invalid);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toMatch(/body: dryRun: .*\(got "yes"\)/);
    const paths = body.error.issues.map((i: { path: string[] }) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["dryRun", "limit"]));
    expect(body.error.issues.map((i: { code: string }) => i.code)).toContain("unrecognized_keys");

    const wrongType = await s.request("/api/jobs/nightly/runs", {
      method: "POST",
      body: "dryRun=true",
      headers: { ...auth(), "content-type": "text/plain" },
    });
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({ error: { code: "unsupported_media_type" } });

    const unknown = await s.request("/api/jobs/ghost/runs", postJson("{}"));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: "not_found", message: 'unknown job "ghost"' },
    });
    expect(s.requested).toEqual([]);
  });

  it("lists runs with filters, shows one, 404s an unknown one, 400s a bad filter", async () => {
    const rt = await openTestRuntime(h);
    const s = await setup(rt);
    const a = await executeRun(rt, {
      jobName: "a",
      jobType: "test.echo",
      params: { message: "m" },
    });
    const b = await executeRun(rt, {
      jobName: "b",
      jobType: "test.echo",
      params: { message: "m", fail: true },
    });
    const get = async (path: string) => s.request(path, { headers: auth() });
    const all = await read(get("/api/runs"));
    expect(all.runs.map((r: { runId: string }) => r.runId).sort()).toEqual(
      [a.runId, b.runId].sort(),
    );
    const failed = await read(get("/api/runs?status=failed"));
    expect(failed.runs).toMatchObject([{ runId: b.runId, error: "echo failed: m" }]);
    const ofA = await read(get("/api/runs?job=a&limit=1"));
    expect(ofA.runs).toMatchObject([{ runId: a.runId, jobName: "a", status: "succeeded" }]);

    const one = await get(`/api/runs/${a.runId}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ runId: a.runId, summary: { message: "m" } });

    const queued = await get("/api/runs/queued_20260115T093000Z_abcdef");
    expect(queued.status).toBe(200);
    expect(await read(queued)).toMatchObject({ status: "queued", jobName: "queued" });

    const unknown = await get("/api/runs/nope_20260101T000000Z_000000");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: "not_found", message: 'unknown run "nope_20260101T000000Z_000000"' },
    });

    for (const bad of [
      "status=done",
      "limit=0",
      "limit=abc",
      "limit=0x10",
      "limit=1e3",
      "limit=%205",
      "color=red",
    ]) {
      const res = await get(`/api/runs?${bad}`);
      expect(res.status, bad).toBe(400);
      const err = await read(res);
      expect(err.error.code).toBe("invalid_request");
      expect(err.error.issues.length, bad).toBeGreaterThan(0);
    }
  });

  it("/metrics counts the runs of this process", async () => {
    const rt = await openTestRuntime(h);
    const s = await setup(rt);
    await executeRun(rt, { jobName: "a", jobType: "test.echo", params: { message: "m" } });
    const res = await s.request("/metrics", { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toContain('tidemark_runs_total{job="a",status="succeeded"} 1');
  });

  it("serves the OpenAPI document and the docs page, and mounts pipeline routes", async () => {
    const rt = await openTestRuntime(h, { registry: new Registry([testPipeline, routedPipeline]) });
    const s = await setup(rt);
    const doc = await read(s.request("/openapi.json", { headers: auth() }));
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/healthz",
        "/metrics",
        "/api/jobs",
        "/api/jobs/{name}",
        "/api/jobs/{name}/runs",
        "/api/runs",
        "/api/runs/{run_id}",
        "/api/routed/hello",
      ]),
    );
    expect(doc.paths["/healthz"].get.security).toEqual([]);
    const docs = await s.request("/docs", { headers: auth() });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("swagger");

    expect((await s.request("/api/routed/hello")).status).toBe(401);
    const hello = await s.request("/api/routed/hello", { headers: auth() });
    expect(await hello.json()).toEqual({ hi: "there" });

    // A pipeline route's document lists the answers it really gives.
    expect(Object.keys(doc.paths["/api/routed/hello"].get.responses).sort()).toEqual([
      "200",
      "401",
      "500",
    ]);
    expect(Object.keys(doc.paths["/api/routed/things/{id}"].post.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "404",
      "500",
      "502",
    ]);
    const post = (upstream: string) =>
      s.request("/api/routed/things/7", {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json" },
        body: JSON.stringify({ upstream }),
      });
    const made = await post("ok");
    expect(made.status).toBe(201);
    expect(await made.json()).toEqual({ id: 7 });
    // An outside API failing is a bad gateway, not a conflict.
    const down = await post("down");
    expect(down.status).toBe(502);
    expect((await down.json()).error).toMatchObject({ code: "upstream_error" });
    // A database that cannot be reached is an outage (503), not a bug (500).
    const dbDown = await s.request("/api/routed/db-down", { headers: auth() });
    expect(dbDown.status).toBe(503);
    expect((await dbDown.json()).error).toMatchObject({ code: "unavailable" });
  });
});

describe("HTTP API without auth (--insecure-no-auth)", () => {
  it("answers without a token", async () => {
    const rt = { registry: new Registry([]) } as unknown as Runtime;
    const metrics = new TidemarkMetrics();
    const app = createApp(
      {
        runtime: rt,
        queue: undefined,
        metrics,
        apiTokens: undefined,
        requestRun: async () => {
          throw new Error("unused");
        },
        findRequestedRun: async () => undefined,
      },
      silentLogger(),
    );
    expect((await app.request("/metrics")).status).toBe(200);
    const missing = await app.request("/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: "not_found", message: "no route for GET /nope" },
    });
  });
});

describe("request body limit", () => {
  const app = () =>
    createApp(
      {
        runtime: {
          registry: new Registry([]),
          config: { bodyLimitBytes: 4096 },
        } as unknown as Runtime,
        queue: undefined,
        metrics: new TidemarkMetrics(),
        apiTokens: [TOKEN],
        requestRun: async () => {
          throw new Error("must not be called: the body is too large");
        },
        findRequestedRun: async () => undefined,
      },
      silentLogger(),
    );

  /** A 10 MB body made on demand, counting the kilobytes the server pulled. */
  const endlessBody = () => {
    const seen = { pulled: 0 };
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        seen.pulled++;
        controller.enqueue(new Uint8Array(1024));
        if (seen.pulled > 10_000) controller.close();
      },
    });
    return { body, seen };
  };

  it("answers 413 JSON from the declared length, before reading the body", async () => {
    const { body, seen } = endlessBody();
    const res = await app().request("/api/jobs/x/runs", {
      method: "POST",
      body,
      headers: { ...auth(), "content-type": "application/json", "content-length": "209715200" },
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: {
        code: "payload_too_large",
        message: "request body over 4096 bytes (server.body_limit_bytes)",
      },
    });
    expect(seen.pulled).toBeLessThan(5);
  });

  it("stops a body without a declared length once it passes the limit", async () => {
    const { body, seen } = endlessBody();
    const res = await app().request("/api/jobs/x/runs", {
      method: "POST",
      body,
      headers: { ...auth(), "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(seen.pulled).toBeLessThan(20);
  });
});
