import { type FakeServer, startFakeServer } from "tidemark/kit";
import { byUpdate, type FakeRecord, sampleRecords } from "./records.ts";

/**
 * The fault knob: `none`, or `wrong-shape` (every page answers 200 with a body whose records
 * sit under another field, as a changed or broken API would: the run must fail, not end).
 */
export type FakeFault = "none" | "wrong-shape";

/** A running fake of the records API. */
export interface StarterKitFake {
  readonly url: string;
  /** Status codes, delays and dropped connections (tidemark/kit's fault controller). */
  readonly server: FakeServer;
  readonly records: FakeRecord[];
  fault: FakeFault;
  /** Changes the title of the `count` oldest records and marks them updated now. */
  touch(count: number): string[];
  /** Changes only a field the pipeline does not keep, without moving updated_at. */
  bumpViews(): void;
  close(): Promise<void>;
}

/** Options of the fake. */
export interface StarterKitFakeOptions {
  port?: number;
  host?: string;
  /** Records in the catalogue (default 120). */
  count?: number;
  fault?: FakeFault;
}

function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

/** Changes the title of the `count` oldest records and marks them updated now; their ids. */
function touchOldest(records: FakeRecord[], count: number): string[] {
  const oldest = [...records].sort(byUpdate).slice(0, count);
  const now = new Date().toISOString();
  for (const r of oldest) {
    r.title = `${r.title} (edited)`;
    r.updated_at = now;
  }
  return oldest.map((r) => r.id);
}

/** `GET /v1/records`: the page the query asks for, in the shape the fault knob says. */
function recordsPage(records: readonly FakeRecord[], fault: FakeFault, url: URL): Response {
  const since = url.searchParams.get("updated_since") ?? "";
  const limit = Math.min(500, Math.max(1, Number(url.searchParams.get("limit") ?? 100)));
  const from = Number(url.searchParams.get("page_token") ?? 0);
  if (since !== "" && Number.isNaN(Date.parse(since))) {
    return json({ error: "updated_since is not a timestamp" }, 400);
  }
  const cutoff = since === "" ? "" : new Date(since).toISOString();
  const matching = records.filter((r) => r.updated_at >= cutoff).sort(byUpdate);
  const page = matching.slice(from, from + limit);
  const next = from + limit < matching.length ? String(from + limit) : null;
  if (fault === "wrong-shape") return json({ items: page, next_page_token: next });
  return json({ records: page, next_page_token: next });
}

/**
 * Starts the fake records API: `GET /v1/records?updated_since=&limit=&page_token=` pages the
 * records updated at or after `updated_since`, oldest first; `POST /_fake/touch?count=N` and
 * `POST /_fake/fault?kind=…` change it from outside (a demo, a shell).
 */
export async function startStarterKitFake(
  options: StarterKitFakeOptions = {},
): Promise<StarterKitFake> {
  const records = sampleRecords(options.count ?? 120, Date.now());
  const state = { fault: options.fault ?? ("none" as FakeFault) };
  const server = await startFakeServer(
    (request) => {
      const url = new URL(request.url);
      if (request.method === "POST" && url.pathname === "/_fake/touch") {
        return json({ touched: touchOldest(records, Number(url.searchParams.get("count") ?? 1)) });
      }
      if (request.method === "POST" && url.pathname === "/_fake/fault") {
        const kind = url.searchParams.get("kind");
        if (kind !== "none" && kind !== "wrong-shape") return json({ error: "unknown kind" }, 400);
        state.fault = kind;
        return json({ fault: kind });
      }
      if (request.method === "GET" && url.pathname === "/v1/records") {
        return recordsPage(records, state.fault, url);
      }
      return json({ error: "not found" }, 404);
    },
    { port: options.port ?? 0, host: options.host ?? "127.0.0.1" },
  );
  return {
    url: server.url,
    server,
    records,
    get fault() {
      return state.fault;
    },
    set fault(kind: FakeFault) {
      state.fault = kind;
    },
    touch: (count) => touchOldest(records, count),
    bumpViews() {
      for (const r of records) r.views++;
    },
    close: () => server.close(),
  };
}
