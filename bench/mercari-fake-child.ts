// Child process of bench/mercari.ts: the Mercari fake holding one keyword's listings, with a
// fixed latency, in its own process so that neither side under test shares its event loop.
// Prints its URL on the first line of stdout, then serves until SIGTERM.
//
//   tsx bench/mercari-fake-child.ts <keyword> <listings> <latencyMs> <seed>
import { startMercariFakeServer } from "../src/pipelines/mercari/fake/start-fake.ts";

const [keyword = "ベンチ ポケモンカード", listings = "50000", latency = "50", seed = "3"] =
  process.argv.slice(2);

const started = await startMercariFakeServer({
  seed: Number(seed),
  start: "2026-11-01T00:00:00.000Z",
  autoGroups: false,
  groups: [
    {
      keyword,
      count: Number(listings),
      categoryId: 1289,
      priceMin: 300,
      priceMax: 9000,
      soldShare: 0.5,
      // Every listing's name holds the keyword: the inspect step keeps them all, so every
      // listing must end up stored exactly once.
      descriptionOnlyShare: 0,
    },
  ],
  knobs: { latencyMs: Number(latency) },
});
process.stdout.write(`${started.url}\n`);
process.on("SIGTERM", () => {
  void started.close().then(() => process.exit(0));
});
