import type { MiddlewareHandler } from "hono";

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * A request labelled JSON whose body is empty (`curl -X POST -H 'Content-Type:
 * application/json'` with no `-d`) reads as the empty object, as a request with no body does,
 * instead of failing as malformed JSON: the body of such routes is optional.
 */
export const emptyJsonBody: MiddlewareHandler = async (c, next) => {
  if (JSON_TYPE.test(c.req.header("content-type") ?? "")) {
    const text = await c.req.text();
    // Hono parses JSON from the cached text: `c.req.json()` reads `bodyCache.text`, which holds
    // the promise of the body (its declared type says the value; app.test.ts catches a change).
    const cache = c.req.bodyCache as { text?: Promise<string> };
    if (text.trim() === "") cache.text = Promise.resolve("{}");
  }
  await next();
};
