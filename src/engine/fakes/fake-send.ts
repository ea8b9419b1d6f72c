import type { ServerResponse } from "node:http";

/** Statuses whose answers carry no body. */
export const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** A fake's answer without Web objects: status, headers and the body as text or bytes. */
export interface PlainFakeAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array;
}

/** Writes a Web Response to Node, optionally cutting the body after `truncateAt` bytes. */
export async function sendWeb(
  res: ServerResponse,
  method: string,
  response: Response,
  truncateAt: number | undefined,
): Promise<void> {
  const bytes = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name === "content-length" || name === "transfer-encoding" || name === "set-cookie")
      continue;
    res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  writeBody(res, method, response.status, bytes, truncateAt);
}

/** Writes a plain answer to Node (the fast path: no Web Response in between). */
export function sendPlain(
  res: ServerResponse,
  method: string,
  answer: PlainFakeAnswer,
  truncateAt: number | undefined,
): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) {
    const lower = name.toLowerCase();
    if (lower === "content-length" || lower === "transfer-encoding") continue;
    res.setHeader(name, value);
  }
  const bytes = typeof answer.body === "string" ? Buffer.from(answer.body, "utf8") : answer.body;
  writeBody(res, method, answer.status, bytes, truncateAt);
}

function writeBody(
  res: ServerResponse,
  method: string,
  status: number,
  bytes: Uint8Array,
  truncateAt: number | undefined,
): void {
  const bodyless = method === "HEAD" || NULL_BODY_STATUSES.has(status);
  if (bodyless) {
    res.end();
    return;
  }
  if (truncateAt === undefined) {
    res.setHeader("content-length", bytes.length);
    res.end(bytes);
    return;
  }
  // Promise more bytes than we send, then cut the connection: the client sees a short body.
  const sent = Math.max(0, Math.min(truncateAt, bytes.length));
  res.setHeader("content-length", Math.max(bytes.length, sent + 1));
  res.flushHeaders();
  res.write(bytes.subarray(0, sent), () => res.socket?.destroy());
}
