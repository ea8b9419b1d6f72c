import type { SharedTokenLimiter } from "tidemark/kit";
import { onTestFinished } from "vitest";
import { silentLogger } from "../../../src/infra/logging/logger.ts";
import { readRakutenCredentials } from "../../../src/pipelines/rakuten/client/credentials.ts";
import { RakutenClient } from "../../../src/pipelines/rakuten/client/rakuten-client.ts";
import type { RakutenFakeKnobs } from "../../../src/pipelines/rakuten/fake/rakuten-api-fake.ts";
import { startRakutenFake } from "../../../src/pipelines/rakuten/fake/start-fake.ts";
import { rakutenSettingsOf } from "./settings.ts";

/** Credentials the fake accepts. */
export const CLIENT_ENV = {
  RAKUTEN_APPLICATION_ID: "aaaaaaaa-1111-2222-3333-bbbbbbbbbbbb",
  RAKUTEN_ACCESS_KEY: "sekret-access-key-123",
};

/** Settings for a client of the fake at `url` (pipelines.rakuten keys). */
export function settingsFor(url: string, extra: Record<string, unknown> = {}) {
  return rakutenSettingsOf({ base_url: url, use_env: false, ...extra });
}

/** A fake (closed after the test) and a client factory recording its retry waits. */
export async function clientFixture(
  opts: { knobs?: Partial<RakutenFakeKnobs>; size?: number } = {},
) {
  const running = await startRakutenFake({
    size: opts.size ?? 50,
    knobs: { rateLimit: false, ...opts.knobs },
  });
  onTestFinished(() => running.close());
  const waits: number[] = [];
  const makeClient = (
    extra: Record<string, unknown> = {},
    more: { limiter?: SharedTokenLimiter; env?: NodeJS.ProcessEnv; url?: string } = {},
  ) => {
    const settings = settingsFor(more.url ?? running.url, { requests_per_second: 50, ...extra });
    return new RakutenClient({
      settings,
      credentials: readRakutenCredentials(settings, more.env ?? CLIENT_ENV),
      logger: silentLogger(),
      limiter: more.limiter,
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });
  };
  return { ...running, catalogue: running.fake.catalogue, waits, makeClient };
}
