import { onTestFinished } from "vitest";
import type { Clock } from "../../src/engine/clock/clock.ts";
import type { Queue } from "../../src/engine/queue/queue.ts";
import type { RunRecord } from "../../src/engine/runs/run-repo.ts";
import { openRuntime } from "../../src/engine/runtime/open-runtime.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { testApp } from "../../src/testing/test-app.ts";

/**
 * A signed-in page's CSRF token, from the header htmx sends (on every page, with or without a
 * form on it; pages without authentication have no sign-out form to read it from).
 */
export function csrfOf(page: string): string {
  return /"X-CSRF-Token":"([^"]+)"/.exec(page)?.[1] ?? "";
}

/** A page as the test reads it. */
export interface UiPage {
  status: number;
  text: string;
  location: string | null;
}

/**
 * The app in-process without authentication (`--insecure-no-auth`), and a browser session with
 * its CSRF token: `get` and `post` (a form; `csrf: false` leaves the token out).
 */
export async function openUi(runtime: Runtime, options: { queue?: Queue } = {}) {
  const app = testApp(runtime, { queue: options.queue });
  const first = await app.request("/ui");
  const cookie = first.headers.getSetCookie()[0]!.split(";")[0]!;
  const csrf = csrfOf(await first.text());
  const read = async (res: Response): Promise<UiPage> => ({
    status: res.status,
    text: await res.text(),
    location: res.headers.get("location"),
  });
  const get = async (p: string) => read(await app.request(p, { headers: { cookie } }));
  const post = async (p: string, body: string, o: { csrf?: boolean } = {}) =>
    read(
      await app.request(p, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: o.csrf === false ? body : `${body}&_csrf=${csrf}`,
      }),
    );
  return { app, get, post };
}

/**
 * The app in-process with authentication on (`tokens` as `api_tokens`), as `tidemark serve`
 * builds it; sign in with `signInAs`.
 */
export function appWithTokens(runtime: Runtime, tokens: readonly string[]) {
  return testApp(runtime, { tokens });
}

/** The cookies a response sets, as a Cookie header. */
export function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
}

/** What `@hono/node-server` passes a request from `address`: its socket, as getConnInfo reads it. */
export function fromAddress(address: string) {
  return { incoming: { socket: { remoteAddress: address, remotePort: 50000 } } };
}

type UiAppLike = ReturnType<typeof appWithTokens>;

/**
 * Opens the sign-in form and sends it with `token` from the client at `address`, as a browser
 * does. The answer, and the session cookie when it signed in ("" otherwise).
 */
export async function signInAs(app: UiAppLike, token: string, address = "192.0.2.10") {
  const env = fromAddress(address);
  const form = await app.request("/ui/sign-in", {}, env);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await app.request(
    "/ui/sign-in",
    {
      method: "POST",
      headers: { cookie: cookiesOf(form), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, token, next: "/ui" }).toString(),
    },
    env,
  );
  const session = /tidemark_session=[^;]+/.exec(res.headers.getSetCookie().join("\n"));
  return { res, session: session && !session[0].endsWith("=") ? session[0] : "" };
}

/** A second process's runtime on the same database (what a second `tidemark serve` opens). */
export async function secondRuntime(first: Runtime, clock?: Clock): Promise<Runtime> {
  const runtime = await openRuntime({
    config: first.config,
    registry: first.registry,
    logger: silentLogger(),
    clock,
  });
  onTestFinished(() => runtime.close());
  return runtime;
}

/** A succeeded `test.echo` run of `jobName` as stored, for seeding the run pages. */
export function storedRun(
  jobName: string,
  runId: string,
  times: { startedAt: string; finishedAt: string },
  over: Partial<RunRecord> = {},
): RunRecord {
  return {
    runId,
    jobName,
    jobType: "test.echo",
    status: "succeeded",
    ...times,
    summary: {},
    error: null,
    dryRun: false,
    leaseKey: `job:${jobName}`,
    host: "h",
    pid: 1,
    ...over,
  };
}
