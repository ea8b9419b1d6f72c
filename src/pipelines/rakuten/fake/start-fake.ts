import type { FakeDefinition, FakeOptions, RunningFake } from "tidemark";
import { startFakeServer } from "tidemark/kit";
import { startEmbeddingsFake } from "./embeddings-fake.ts";
import { RakutenApiFake, type RakutenFakeKnobs } from "./rakuten-api-fake.ts";

/** The engine's fake HTTP server (request log, counters, fault knobs). */
export type FakeServer = Awaited<ReturnType<typeof startFakeServer>>;

/** Credentials the fake accepts (any non-empty ones do); not secrets. */
export const FAKE_APPLICATION_ID = "00000000-0000-4000-8000-00000000fake";
export const FAKE_ACCESS_KEY = "fake-access-key";

/** A running Rakuten API fake. */
export interface RunningRakutenFake {
  /** `http://127.0.0.1:<port>`: use as `pipelines.rakuten.base_url` / TIDEMARK_RAKUTEN_URL. */
  url: string;
  fake: RakutenApiFake;
  server: FakeServer;
  close(): Promise<void>;
}

/** Options of startRakutenFake. */
export interface StartRakutenFakeOptions {
  port?: number;
  host?: string;
  /** Catalogue seed (default 15) and item count (default 300, at most 100,000). */
  seed?: number;
  size?: number;
  knobs?: Partial<RakutenFakeKnobs>;
  /**
   * Keep every request in `server.requests` (default true). Off for long benchmarks: the log
   * would grow by one entry per call.
   */
  recordRequests?: boolean;
}

/** Starts the Rakuten API fake on 127.0.0.1 (a free port unless given). */
export async function startRakutenFake(
  options: StartRakutenFakeOptions = {},
): Promise<RunningRakutenFake> {
  const fake = new RakutenApiFake({ seed: options.seed, size: options.size, knobs: options.knobs });
  const server = await startFakeServer(fake.handle, {
    port: options.port,
    host: options.host,
    recordRequests: options.recordRequests ?? true,
    // The fast path: the fake's plain answers go out without Web Request/Response objects.
    plain: (req) =>
      fake.answer({
        method: req.method,
        url: req.url,
        header: (name) => {
          const v = req.headers[name.toLowerCase()];
          return Array.isArray(v) ? v.join(", ") : (v ?? null);
        },
        text: async () => req.body.toString("utf8"),
      }),
  });
  return { url: server.url, fake, server, close: () => server.close() };
}

/** The rate limit `tidemark fake rakuten` enforces per application id. */
const FAKE_REQUESTS_PER_SECOND = 50;

/**
 * `tidemark fake rakuten`: the Rakuten API fake (300 Japanese gift items, 50 requests/second per
 * application id enforced) and an OpenAI-compatible embeddings fake.
 */
export const rakutenFake: FakeDefinition = {
  description:
    "Rakuten Ichiba API (item search, ranking, genre, tag) with a Japanese gift catalogue, and an embeddings endpoint",
  async start(options: FakeOptions): Promise<RunningFake> {
    const api = await startRakutenFake({
      port: options.port,
      host: options.host,
      knobs: { requestsPerSecond: FAKE_REQUESTS_PER_SECOND },
    });
    const embeddings = await startEmbeddingsFake({ host: options.host });
    const sample = api.fake.catalogue.itemCodes(1)[0] ?? "";
    return {
      env: {
        TIDEMARK_RAKUTEN_URL: api.url,
        // The fake's own rate limit, announced so runs against it use all of it.
        TIDEMARK_RAKUTEN_REQUESTS_PER_SECOND: String(FAKE_REQUESTS_PER_SECOND),
        TIDEMARK_EMBEDDINGS_URL: embeddings.url,
        // Variables only: a new shell without them is back on the default local provider.
        TIDEMARK_EMBEDDINGS_PROVIDER: "openai-compatible",
      },
      hints: [
        `export RAKUTEN_APPLICATION_ID=${FAKE_APPLICATION_ID} RAKUTEN_ACCESS_KEY=${FAKE_ACCESS_KEY}   # the fake takes any`,
        `curl '${api.url}/ichibams/api/IchibaItem/Search/20220601?applicationId=x&accessKey=y&formatVersion=2&itemCode=${sample}'`,
        `curl -X POST ${api.url}/_fake/change -d '{"op":"price","itemCode":"${sample}","price":1234}'`,
        `curl ${api.url}/_fake/stats        # calls and 429s`,
        `curl -X POST ${api.url}/_fake/knobs -d '{"burst429":5,"malformed":2,"maintenance":false}'   # fault knobs: docs/pipelines/rakuten.md`,
        "tidemark job describe rakuten.item   # params and a ready example",
      ],
      async close() {
        await embeddings.close();
        await api.close();
      },
    };
  },
};
