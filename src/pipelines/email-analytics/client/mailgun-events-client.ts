import type { Logger } from "tidemark";
import {
  HttpClient,
  type HttpRequestEvent,
  paginateByNextUrl,
  type RetryPolicyOptions,
} from "tidemark/kit";
import type { MailgunCredentials } from "../settings.ts";
import { decodeEventsPage } from "./decode-page.ts";
import { normalizeEvent } from "./normalize-event.ts";
import type {
  EventsPage,
  FetchEventsOptions,
  MailgunEventsClient,
  MailgunEventsPage,
  NormalizedEvent,
} from "./types.ts";

/** Ghost's page size (Mailgun's maximum). */
export const PAGE_LIMIT = 300;

/** Construction options of the Mailgun events client. */
export interface MailgunClientOptions {
  credentials: MailgunCredentials;
  logger: Logger;
  /** Attempts per request, the first included (default 5, as Ghost's mailgun client). */
  retryMaxAttempts?: number;
  /** Overrides of the retry policy (tests inject a sleep). */
  retry?: RetryPolicyOptions;
  requestTimeoutMs?: number;
  /** Injectable fetch (default: the global one). */
  fetch?: typeof fetch;
  /** Called after every HTTP attempt (metrics). */
  onRequest?: (event: HttpRequestEvent) => void;
  /** Time source for the default `fetchStartedAt` (default: the wall clock). */
  now?: () => Date;
}

/** Mailgun's public hosts: `paging` links naming them are rebased onto the configured URL. */
const MAILGUN_HOST = /^https:\/\/api\.(eu\.)?mailgun\.net\/v3(?=\/)/;

/**
 * The Events API client: Basic auth (`api:<key>`), retries of 429/5xx/network errors through
 * the engine's HttpClient, Ghost's query (`limit=300`, `event=a OR b`, `tags=bulk-email AND
 * <tag>`, `begin`/`end` in epoch seconds, `ascending=yes`) and paging by `paging.next`.
 */
export function createMailgunEventsClient(options: MailgunClientOptions): MailgunEventsClient {
  const { credentials } = options;
  const apiRoot = `${credentials.baseUrl}/v3`;
  const http = new HttpClient({
    baseUrl: apiRoot,
    timeoutMs: options.requestTimeoutMs ?? 30_000,
    retry: { maxAttempts: options.retryMaxAttempts ?? 5, ...options.retry },
    headers: { authorization: basicAuth(credentials.apiKey) },
    logger: options.logger,
    userAgent: "tidemark-email-analytics/0.1",
    fetch: options.fetch,
    onRequest: options.onRequest,
  });
  const now = options.now ?? (() => new Date());
  return {
    fetchEvents: (fetchOptions) =>
      fetchEvents(http, credentials, apiRoot, { ...fetchOptions }, now),
  };
}

/** `Basic base64(api:<key>)`, Mailgun's scheme. */
export function basicAuth(apiKey: string): string {
  return `Basic ${Buffer.from(`api:${apiKey}`).toString("base64")}`;
}

/** The first request's query, as Ghost builds it. */
export function eventsQuery(
  tags: readonly string[],
  options: Pick<FetchEventsOptions, "begin" | "end" | "events">,
): Record<string, string | number> {
  const query: Record<string, string | number> = {
    begin: options.begin.getTime() / 1000,
    end: options.end.getTime() / 1000,
    limit: PAGE_LIMIT,
    tags: tags.join(" AND "),
    ascending: "yes",
  };
  if (options.events.length > 0) query.event = options.events.join(" OR ");
  return query;
}

/**
 * A page as the paginator keeps it: decoded and normalized as soon as it is parsed, so the
 * 300 raw Mailgun items (about 600 KB of objects) die young instead of staying alive while the
 * next page is fetched and the events applied.
 */
interface DecodedPage {
  events: NormalizedEvent[];
  received: number;
  droppedNewer: number;
  droppedNoId: number;
  outOfWindow: number;
  next: string | undefined;
}

/** The window a fetch asked for and the moment it started, in epoch ms. */
interface Bounds {
  beginMs: number;
  endMs: number;
  startedAt: number;
}

async function* fetchEvents(
  http: HttpClient,
  credentials: MailgunCredentials,
  apiRoot: string,
  options: FetchEventsOptions,
  now: () => Date,
): AsyncGenerator<EventsPage, void, undefined> {
  const startedAt = (options.fetchStartedAt ?? now()).getTime();
  const maxEvents = options.maxEvents ?? Number.POSITIVE_INFINITY;
  const beginMs = Math.ceil(options.begin.getTime());
  const bounds = { beginMs: options.begin.getTime(), endMs: options.end.getTime(), startedAt };
  // Aborts a prefetched request nobody will read (the caller stopped early).
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const pages = paginateByNextUrl<DecodedPage>(http, {
    first: {
      target: `/${encodeURIComponent(credentials.domain)}/events`,
      query: eventsQuery(credentials.tags, options),
    },
    parse: (json) => decodePage(decodeEventsPage(json), bounds),
    nextUrl: (page) =>
      page.received === 0 ? undefined : page.next?.replace(MAILGUN_HOST, apiRoot),
    signal,
  });
  let eventCount = 0;
  let pending = pages.next();
  try {
    for (;;) {
      const result = await pending;
      if (result.done || result.value.data.received === 0) return;
      const { data, index, attempts, done: last } = result.value;
      eventCount += data.events.length;
      const lastEvent = data.events.at(-1);
      // Only an empty page ends the window: an event newer than the fetch start may carry a
      // wrong timestamp, so it is dropped without cutting the traversal short.
      const windowEnded = last;
      const budgetReached =
        eventCount >= maxEvents &&
        (lastEvent === undefined || lastEvent.timestamp.getTime() > beginMs);
      const done = windowEnded || budgetReached;
      const page: EventsPage = {
        events: data.events,
        index,
        received: data.received,
        droppedNewer: data.droppedNewer,
        droppedNoId: data.droppedNoId,
        outOfWindow: data.outOfWindow,
        attempts,
        stoppedAtBudget: budgetReached && !windowEnded,
      };
      if (!done) {
        // The next page is fetched while the caller applies this one.
        pending = pages.next();
        pending.catch(() => undefined);
      }
      yield page;
      if (done) return;
    }
  } finally {
    stop.abort();
    await pages.return(undefined).catch(() => undefined);
  }
}

/**
 * Slack of the window check, in ms: `begin`/`end` travel as fractional seconds and timestamps
 * as floats, so an event on the window's edge may come back a rounding error outside it.
 */
const WINDOW_SLACK_MS = 1;

/**
 * Normalizes one page's items. Skipped and counted: items stamped outside the window the fetch
 * asked for (Mailgun never returns those, so such a timestamp is wrong and must not move a
 * watermark), items without ids, and items newer than the fetch start.
 */
function decodePage(raw: MailgunEventsPage, bounds: Bounds): DecodedPage {
  const events: NormalizedEvent[] = [];
  let droppedNewer = 0;
  let droppedNoId = 0;
  let outOfWindow = 0;
  for (const item of raw.items) {
    const ms = item.timestamp * 1000;
    if (ms < bounds.beginMs - WINDOW_SLACK_MS || ms > bounds.endMs + WINDOW_SLACK_MS) {
      outOfWindow++;
      continue;
    }
    const event = normalizeEvent(item);
    if (event === null) droppedNoId++;
    else if (event.timestamp.getTime() > bounds.startedAt) droppedNewer++;
    else events.push(event);
  }
  return {
    events,
    received: raw.items.length,
    droppedNewer,
    droppedNoId,
    outOfWindow,
    next: raw.paging.next,
  };
}
