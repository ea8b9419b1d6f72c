import { randomBytes } from "node:crypto";
import type { Clock } from "tidemark";
import { startFakeServer } from "tidemark/kit";
import { basicAuth } from "../client/mailgun-events-client.ts";
import { generateCampaign } from "./campaign.ts";
import { EventStore, FAILURE_KINDS } from "./event-store.ts";
import { mailgunEventsHandler } from "./events-handler.ts";
import type {
  CampaignOptions,
  CampaignSummary,
  FakeEventInput,
  MailgunFault,
} from "./fake-types.ts";
import { ItemJsonWriter } from "./item-json.ts";
import { eventId } from "./payloads.ts";

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

  const handle = mailgunEventsHandler({
    store,
    domain,
    linkBase,
    expectedAuth: basicAuth(apiKey),
    writer: new ItemJsonWriter(store, domain, idPrefix),
    now,
  });
  const server = await startFakeServer(handle, { port: options.port, host: options.host });

  const addEvent = (input: FakeEventInput): string =>
    storeEvent(store, input, { now: now(), defaultTags, idPrefix });

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

/** Stores one event as the fake's `addEvent` takes it; returns its Mailgun id. */
function storeEvent(
  store: EventStore,
  input: FakeEventInput,
  at: { now: number; defaultTags: string[]; idPrefix: string },
): string {
  const timestamp =
    input.timestamp instanceof Date ? input.timestamp.getTime() / 1000 : input.timestamp;
  const visibleAt =
    input.visibleAt?.getTime() ??
    Math.max(at.now + (input.delayMs ?? 0), Math.ceil(timestamp * 1000));
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
    tags: input.tags ?? at.defaultTags,
    variant,
    overrides,
  });
  return input.id ?? eventId(at.idPrefix, seq);
}
