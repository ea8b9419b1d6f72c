import type { FakeOptions, RunningFake } from "tidemark";
import { startFakeServer } from "tidemark/kit";
import { MercariFake, type MercariFakeOptions } from "./mercari-fake.ts";

/** The engine's fault-injecting test server the fake runs in. */
export type FakeServer = Awaited<ReturnType<typeof startFakeServer>>;

/** A started fake: the API fake, its HTTP server (with the engine's fault knobs) and its URL. */
export interface StartedMercariFake {
  fake: MercariFake;
  server: FakeServer;
  url: string;
  close(): Promise<void>;
}

/** Starts the Mercari fake on a port (0 = any free one); tests and the demo use it. */
export async function startMercariFakeServer(
  options: MercariFakeOptions & { port?: number; host?: string } = {},
): Promise<StartedMercariFake> {
  const fake = new MercariFake(options);
  const server = await startFakeServer(fake.handle, { port: options.port, host: options.host });
  return { fake, server, url: server.url, close: () => server.close() };
}

/** Requests per second the fake answers without complaint (it has no rate limit). */
const FAKE_REQUESTS_PER_SECOND = 50;

/**
 * `tidemark fake mercari`: the fake Mercari API with sample keywords (others get listings on
 * first search); the catalogue moves only when told to, over its control API.
 */
export async function startMercariFake(options: FakeOptions): Promise<RunningFake> {
  const started = await startMercariFakeServer({ port: options.port, host: options.host });
  const { url } = started;
  options.print(`catalogue clock at ${started.fake.catalogue.now().toISOString()}`);
  return {
    // The fake's own rate: runs against it are not paced like the real API.
    env: {
      TIDEMARK_MERCARI_URL: url,
      TIDEMARK_MERCARI_REQUESTS_PER_SECOND: String(FAKE_REQUESTS_PER_SECOND),
    },
    hints: [
      `curl -s ${url}/_fake/state                                  # listings by status, knobs`,
      `curl -s -X POST ${url}/_fake/advance -d '{"hours":6}'       # list, reprice, sell, delete`,
      `curl -s -X POST ${url}/_fake/knobs -d '{"block":"empty"}'   # or forbidden, html, off`,
      'tidemark mercari product add --name Switch --keyword "Nintendo Switch" && tidemark mercari crawl',
      // A brand: the search returns its katakana, romaji and sub-brand listings, all kept; the
      // crawl's NO PRICE column counts the no-price hits, which cheapest and trend never show.
      'tidemark mercari product add --name CdG --keyword "comme des garcons" && tidemark mercari crawl   # see FOUND, NO PRICE',
      "tidemark worker --drain && tidemark mercari results <id> && tidemark mercari cheapest <id>   # コムデギャルソン, COMME des GARÇONS, junya watanabe…",
    ],
    close: () => started.close(),
  };
}
