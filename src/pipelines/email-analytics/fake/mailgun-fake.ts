import { randomBytes } from "node:crypto";
import { type Clock, startFakeServer } from "../../../engine/index.ts";
import { basicAuth } from "../client/mailgun-events-client.ts";
import { generateCampaign } from "./campaign.ts";
import { EventStore, FAILURE_KINDS } from "./event-store.ts";
import {
  type EventsQuery,
  MailgunQueryError,
  type PageCursor,
  parseEventsQuery,
  selectPage,
} from "./events-query.ts";
import type {
  CampaignOptions,
  CampaignSummary,
  FakeEventInput,
  MailgunFault,
} from "./fake-types.ts";
import { ItemJsonWriter } from "./item-json.ts";
import { eventId, severityOf } from "./payloads.ts";

type FakeServer = Awaited<ReturnType<typeof startFakeServer>>;

/** Mailgun's US API host: the origin of the real API's `paging` links. */
export const MAILGUN_ORIGIN = "https://api.mailgun.net";

/** Options of the fake Mailgun. */
export interface MailgunFakeOptions {
  port?: number;
  host?: string;
  /** Default `mg.example.com`. */
  domain?: string;
  /** The key Basic auth must carry (default `key-fake-mailgun`). */
  apiKey?: string;
  /** Time source for event visibility (default: the wall clock). */
  clock?: Clock;
  /** A tag added to every event's default tags besides `bulk-email`. */
  tag?: string;
  /**
   * Origin written into `paging` links. Default `https://api.mailgun.net`, whatever address the
   * fake listens on, as Mailgun's own links are: a client must rebase them onto its configured
   * URL (Tidemark's and Ghost's do). `https://api.eu.mailgun.net` for the EU host.
   */
  linkBase?: string;
}

/** A running fake Mailgun Events API with its in-process controls. */
export interface MailgunFake {
  /** `http://127.0.0.1:<port>` (the API root; the client adds `/v3`). */
  readonly url: string;
  readonly domain: string;
  readonly apiKey: string;
  /** TIDEMARK_MAILGUN_URL, MAILGUN_API_KEY and MAILGUN_DOMAIN pointing at this fake. */
  readonly env: Readonly<Record<string, string>>;
  /** The engine's fault knobs (status sequences, delays, dropped connections, rate limit). */
  readonly faults: FakeServer["faults"];
  /** Every request received, oldest first. */
  readonly requests: FakeServer["requests"];
  readonly stats: FakeServer["stats"];
  /** Adds one event; returns its Mailgun id. */
  addEvent(input: FakeEventInput): string;
  /** Adds events in order. */
  addEvents(inputs: Iterable<FakeEventInput>): void;
  /** Adds a realistic campaign for the given emails and recipients. */
  generateCampaign(options: CampaignOptions): CampaignSummary;
  /** Answers the next `count` events requests with `status` in Mailgun's words. */
  failNext(status: MailgunFault, count?: number, retryAfterSeconds?: number): void;
  /** Events held, visible or not. */
  readonly eventCount: number;
  /** Forgets every event, request and fault. */
  clear(): void;
  close(): Promise<void>;
}

/** Token of a `paging` link: the original filters, where to go on, and which way. */
interface PageToken {
  q: string;
  c: [number, number] | null;
  d?: "prev" | "last";
}

const FAULT_BODIES: Record<MailgunFault, string> = {
  400: JSON.stringify({ message: "Invalid request" }),
  401: "Forbidden",
  429: JSON.stringify({ message: "Too many requests" }),
  500: JSON.stringify({ message: "Internal Server Error" }),
  502: "<html><body><h1>502 Bad Gateway</h1></body></html>",
  503: JSON.stringify({ message: "Service Unavailable" }),
  504: "<html><body><h1>504 Gateway Time-out</h1></body></html>",
};

/** Starts a fake Mailgun Events API on a free port (or the given one). */
export async function startMailgunFake(options: MailgunFakeOptions = {}): Promise<MailgunFake> {
  const domain = options.domain ?? "mg.example.com";
  const linkBase = options.linkBase ?? MAILGUN_ORIGIN;
  const apiKey = options.apiKey ?? "key-fake-mailgun";
  const clock = options.clock;
  const now = (): number => (clock ? clock.now().getTime() : Date.now());
  const defaultTags = options.tag ? ["bulk-email", options.tag] : ["bulk-email"];
  const store = new EventStore();
  const idPrefix = randomBytes(9).toString("base64url");
  const expectedAuth = basicAuth(apiKey);
  const severity = (seq: number): string | undefined => severityOf(store.get(seq));

  const writer = new ItemJsonWriter(store, domain, idPrefix);
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

  const server = await startFakeServer(handle, { port: options.port, host: options.host });

  const addEvent = (input: FakeEventInput): string => {
    const timestamp =
      input.timestamp instanceof Date ? input.timestamp.getTime() / 1000 : input.timestamp;
    const visibleAt =
      input.visibleAt?.getTime() ??
      Math.max(now() + (input.delayMs ?? 0), Math.ceil(timestamp * 1000));
    let variant = input.variant ?? 0;
    if (input.event === "failed") {
      const kind = input.failure ?? (input.severity === "temporary" ? "mailbox-full" : "bounce");
      variant = FAILURE_KINDS.indexOf(kind);
    }
    const { id, severity, deliveryStatus, raw } = input;
    const overrides =
      id !== undefined || severity !== undefined || deliveryStatus !== undefined || raw
        ? { id, severity, deliveryStatus, raw }
        : undefined;
    const seq = store.add({
      type: input.event,
      timestamp,
      visibleAt,
      recipient: input.recipient,
      emailId: input.emailId,
      messageId: input.messageId,
      tags: input.tags ?? defaultTags,
      variant,
      overrides,
    });
    return input.id ?? eventId(idPrefix, seq);
  };

  return {
    url: server.url,
    domain,
    apiKey,
    env: { TIDEMARK_MAILGUN_URL: server.url, MAILGUN_API_KEY: apiKey, MAILGUN_DOMAIN: domain },
    faults: server.faults,
    requests: server.requests,
    stats: server.stats,
    addEvent,
    addEvents(inputs) {
      for (const input of inputs) addEvent(input);
    },
    generateCampaign(campaign) {
      return generateCampaign(campaign, { store, defaultTags });
    },
    failNext(status, count = 1, retryAfterSeconds = 1) {
      const headers: Record<string, string> =
        status === 429 || status === 503 ? { "retry-after": String(retryAfterSeconds) } : {};
      if (status !== 401 && !FAULT_BODIES[status].startsWith("<")) {
        headers["content-type"] = "application/json";
      }
      const step = { status, body: FAULT_BODIES[status], headers };
      server.faults.set({
        statusSequence: [...server.faults.statusSequence, ...Array(count).fill(step)],
      });
    },
    get eventCount() {
      return store.size;
    },
    clear() {
      store.clear();
      server.reset();
    },
    close: () => server.close(),
  };
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
