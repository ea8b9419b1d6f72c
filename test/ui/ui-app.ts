import { TidemarkMetrics } from "../../src/engine/metrics/tidemark-metrics.ts";
import type { Queue } from "../../src/engine/queue/queue.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { createApp } from "../../src/server/app.ts";

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
  const app = createApp(
    {
      runtime,
      queue: options.queue,
      metrics: new TidemarkMetrics(),
      apiTokens: undefined,
      requestRun: () => Promise.reject(new Error("not in this test")),
      findRequestedRun: async () => undefined,
    },
    silentLogger(),
  );
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
