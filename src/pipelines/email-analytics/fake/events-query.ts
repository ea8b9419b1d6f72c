import { EVENT_TYPES, type EventStore } from "./event-store.ts";

/** A 400 answer in Mailgun's words (`{"message": …}`). */
export class MailgunQueryError extends Error {}

/** A parsed `GET /v3/{domain}/events` query (filters and range). */
export interface EventsQuery {
  /** Epoch seconds; inclusive. */
  begin: number | undefined;
  /** Epoch seconds; exclusive. */
  end: number | undefined;
  ascending: boolean;
  limit: number;
  /** Type codes (an `event=a OR b` filter), or undefined for all. */
  types: Set<number> | undefined;
  /** `tags=a AND b OR c`: an OR of AND groups, or undefined. */
  tags: string[][] | undefined;
  severity: string | undefined;
  recipient: string | undefined;
}

/** Where a traversal stands: the last event returned, by (timestamp, insertion order). */
export interface PageCursor {
  ts: number;
  seq: number;
}

/** Mailgun accepts epoch seconds (fractional) or an RFC 2822 date. */
function parseTime(name: string, raw: string | null): number | undefined {
  if (raw === null || raw === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw);
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new MailgunQueryError(`Invalid ${name}: ${raw}`);
  return ms / 1000;
}

/** Splits `a OR b` (and `a AND b` inside) as Mailgun's filter expressions. */
function orOfAnds(expr: string): string[][] {
  return expr
    .split(/\s+OR\s+/)
    .map((group) => group.split(/\s+AND\s+/).map((t) => t.trim().replace(/^"(.*)"$/, "$1")))
    .filter((g) => g.length > 0 && g.every((t) => t !== ""));
}

/** Parses and checks a query the way Mailgun answers it (400 with its messages). */
export function parseEventsQuery(params: URLSearchParams): EventsQuery {
  const begin = parseTime("begin", params.get("begin"));
  const end = parseTime("end", params.get("end"));
  const asc = (params.get("ascending") ?? "no").toLowerCase();
  if (asc !== "yes" && asc !== "no") {
    throw new MailgunQueryError(`Invalid ascending: ${params.get("ascending")}`);
  }
  const ascending = asc === "yes";
  if (begin !== undefined && end !== undefined && (ascending ? begin > end : begin < end)) {
    throw new MailgunQueryError(
      `Inconsistent range: begin=${params.get("begin")}, end=${params.get("end")}, ascending=${ascending ? "True" : "False"}`,
    );
  }
  const limitRaw = params.get("limit");
  const limit = limitRaw === null ? 100 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 300) {
    throw new MailgunQueryError("Invalid limit: must be an integer between 1 and 300");
  }
  const eventExpr = params.get("event");
  let types: Set<number> | undefined;
  if (eventExpr) {
    types = new Set();
    for (const name of eventExpr.split(/\s+OR\s+/)) {
      const code = EVENT_TYPES.indexOf(name.trim() as (typeof EVENT_TYPES)[number]);
      if (code < 0) throw new MailgunQueryError(`Invalid event filter: ${eventExpr}`);
      types.add(code);
    }
  }
  const tagsExpr = params.get("tags");
  return {
    begin,
    end,
    ascending,
    limit,
    types,
    tags: tagsExpr ? orOfAnds(tagsExpr) : undefined,
    severity: params.get("severity") ?? undefined,
    recipient: params.get("recipient") ?? undefined,
  };
}

/**
 * The next page of a traversal: up to `limit` visible events matching the filters, after
 * `cursor` (or from the range start), in the query's direction. Events become visible at
 * their `visibleAt`; one that turns visible behind a traversal's cursor is not seen by it, as
 * with Mailgun's eventual consistency.
 */
export function selectPage(
  store: EventStore,
  query: EventsQuery,
  cursor: PageCursor | null,
  nowMs: number,
  severityOf: (seq: number) => string | undefined,
): number[] {
  const { ts, visibleAt, type, tags, recipient, order, n } = store.columns();
  const tagMatch = new Map<number, boolean>();
  const recipientIdx =
    query.recipient === undefined ? undefined : (store.recipientIndex(query.recipient) ?? -1);
  const matches = (seq: number): boolean => {
    if ((visibleAt[seq] as number) > nowMs) return false;
    if (query.types && !query.types.has(type[seq] as number)) return false;
    if (recipientIdx !== undefined && recipient[seq] !== recipientIdx) return false;
    if (query.tags) {
      const set = tags[seq] as number;
      let ok = tagMatch.get(set);
      if (ok === undefined) {
        const have = store.tagSet(set);
        ok = query.tags.some((group) => group.every((t) => have.includes(t)));
        tagMatch.set(set, ok);
      }
      if (!ok) return false;
    }
    if (query.severity !== undefined && severityOf(seq) !== query.severity) return false;
    return true;
  };
  const tsAt = (pos: number): number => ts[order[pos] as number] as number;
  // First position whose (ts, seq) is > (t, s) (s = Infinity: > t; s = -1: >= t).
  const upper = (t: number, s: number): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const mt = tsAt(mid);
      if (mt < t || (mt === t && (order[mid] as number) <= s)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const out: number[] = [];
  if (query.ascending) {
    let pos = cursor
      ? upper(cursor.ts, cursor.seq)
      : query.begin === undefined
        ? 0
        : upper(query.begin, -1);
    for (; pos < n && out.length < query.limit; pos++) {
      const seq = order[pos] as number;
      if (query.end !== undefined && (ts[seq] as number) >= query.end) break;
      if (matches(seq)) out.push(seq);
    }
  } else {
    let pos =
      (cursor
        ? upper(cursor.ts, cursor.seq - 1)
        : query.begin === undefined
          ? n
          : upper(query.begin, Number.POSITIVE_INFINITY)) - 1;
    for (; pos >= 0 && out.length < query.limit; pos--) {
      const seq = order[pos] as number;
      if (query.end !== undefined && (ts[seq] as number) <= query.end) break;
      if (matches(seq)) out.push(seq);
    }
  }
  return out;
}
