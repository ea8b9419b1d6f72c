// Calls the mercari HTTP API in-process (the test app over a test world), with a bearer token.
import { testApp } from "../../../src/testing/test-app.ts";
import type { World } from "./world.ts";

/** The token the test app accepts. */
export const TOKEN = "mercari-route-token-0123456789";

// Response bodies are checked with expect(); typing each one would only restate the schemas.
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Body = any;

/** An in-process API over the world: `call(method, path, body?, token?)` → status and JSON. */
export function api(w: World) {
  const app = testApp(w.runtime, { queue: w.queue, tokens: [TOKEN] });
  return async (method: string, path: string, body?: unknown, token: string | null = TOKEN) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await app.request(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
}
