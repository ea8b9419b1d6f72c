export { type RakutenCredentials, rateLimitKey, readRakutenCredentials } from "./credentials.ts";
export { API_VERSIONS, apiOfPath, endpointPath, type RakutenApi } from "./endpoints.ts";
export {
  isNotFound,
  parseRakutenError,
  RakutenApiError,
  type RakutenErrorInfo,
  RakutenNotFoundError,
} from "./errors.ts";
export {
  RakutenClient,
  type RakutenClientOptions,
  type RakutenClientStats,
} from "./rakuten-client.ts";
export type {
  FetchMeta,
  RakutenGenreRaw,
  RakutenItemRaw,
  RakutenRankingRaw,
  RakutenTagRaw,
} from "./raw-types.ts";
export type {
  RakutenGenreRefPayload,
  RakutenItemPayload,
  RakutenRankingItemPayload,
  RakutenTagGroupPayload,
} from "./schemas.ts";
