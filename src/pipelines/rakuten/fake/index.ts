export { FakeCatalogue, type FakeGenre, type FakeItem, MAX_CATALOGUE_SIZE } from "./catalogue.ts";
export {
  DEFAULT_KNOBS,
  RakutenApiFake,
  type RakutenFakeKnobs,
  type RakutenFakeStats,
} from "./rakuten-api-fake.ts";
export {
  FAKE_ACCESS_KEY,
  FAKE_APPLICATION_ID,
  type RunningRakutenFake,
  rakutenFake,
  type StartRakutenFakeOptions,
  startRakutenFake,
} from "./start-rakuten-fake.ts";
