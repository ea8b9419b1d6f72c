import type { EventStore } from "./event-store.ts";
import {
  type EventsQuery,
  MailgunQueryError,
  type PageCursor,
  parseEventsQuery,
  selectPage,
} from "./events-query.ts";
import type { ItemJsonWriter } from "./item-json.ts";
import { severityOf } from "./payloads.ts";

/** Token of a `paging` link: the original filters, where to go on, and which way. */
interface PageToken {
  q: string;
  c: [number, number] | null;
  d?: "prev" | "last";
}

/** What the fake's events route reads: the events, the domain, the key, the time. */
export interface EventsRoute {
  store: EventStore;
  domain: string;
  /** Origin written into `paging` links. */
  linkBase: string;
  /** The Authorization header a request must carry. */
  expectedAuth: string;
  writer: ItemJsonWriter;
  /** Milliseconds since the epoch: events visible at that time are listed. */
  now: () => number;
}

/** `GET /v3/<domain>/events[/<page token>]` as Mailgun answers it. */
export function mailgunEventsHandler(route: EventsRoute): (request: Request) => Response {
  const { store, domain, linkBase, expectedAuth, writer, now } = route;
  const severity = (seq: number): string | undefined => severityOf(store.get(seq));
  const json = (status: number, body: unknown): Response =>
    new Response(typeof body === "string" ? body : JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json" },
    });

  const handle = (request: Request): Response => {
    const url = new URL(request.url);
    const m = /^\/v3\/([^/]+)\/events(?:\/([A-Za-z0-9_-]+))?\/?$/.exec(url.pathname);
    if (!m) return json(404, { message: "Not Found" });
    if (request.headers.get("authorization") !== expectedAuth) {
      return new Response("Forbidden", { status: 401, headers: { "content-type": "text/plain" } });
    }
    if (decodeURIComponent(m[1] as string) !== domain) {
      return json(404, { message: `Domain not found: ${m[1]}` });
    }
    try {
      const token = m[2] === undefined ? null : decodeToken(m[2]);
      const filters = token ? token.q : filterString(url.searchParams);
      const query = parseEventsQuery(new URLSearchParams(filters));
      const base = `${linkBase}/v3/${m[1]}/events`;
      return json(200, answer(query, filters, token, base));
    } catch (err) {
      if (err instanceof MailgunQueryError) return json(400, { message: err.message });
      throw err;
    }
  };

  const answer = (query: EventsQuery, q: string, token: PageToken | null, base: string) => {
    const cursor: PageCursor | null = token?.c ? { ts: token.c[0], seq: token.c[1] } : null;
    const reverse = token?.d === "prev" || token?.d === "last";
    const walk = reverse ? { ...query, ascending: !query.ascending } : query;
    const seqs = selectPage(store, walk, cursor, now(), severity);
    if (reverse) seqs.reverse();
    const items = seqs.map((seq) => writer.json(seq)).join(",");
    const at = (seq: number | undefined): [number, number] | null =>
      seq === undefined ? null : [store.get(seq).timestamp, seq];
    const link = (t: PageToken): string => `${base}/${encodeToken(t)}`;
    const lastSeq = seqs.at(-1);
    const paging = {
      first: link({ q, c: null }),
      last: link({ q, c: null, d: "last" }),
      next: link({ q, c: lastSeq === undefined ? (token?.c ?? null) : at(lastSeq) }),
      previous: link({ q, c: at(seqs[0]) ?? token?.c ?? null, d: "prev" }),
    };
    return `{"items":[${items}],"paging":${JSON.stringify(paging)}}`;
  };

  return handle;
}

/** The filter parameters of a first request, as a stable query string for the page tokens. */
function filterString(params: URLSearchParams): string {
  const keep = new URLSearchParams();
  for (const [k, v] of params) if (k !== "page") keep.append(k, v);
  return keep.toString();
}

function encodeToken(token: PageToken): string {
  return Buffer.from(JSON.stringify(token)).toString("base64url");
}

function decodeToken(raw: string): PageToken {
  try {
    const t = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as PageToken;
    if (typeof t.q === "string") return t;
  } catch {
    // falls through to the 400
  }
  throw new MailgunQueryError(`Invalid page: ${raw.slice(0, 40)}`);
}
