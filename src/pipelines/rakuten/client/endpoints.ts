/** The four APIs the pipeline calls. */
export type RakutenApi = "item" | "ranking" | "genre" | "tag";

/** Endpoint version of each API (sent as part of the path; reported as `api_version`). */
export const API_VERSIONS: Readonly<Record<RakutenApi, string>> = {
  item: "20220601",
  ranking: "20220601",
  genre: "20140222",
  tag: "20140222",
};

/** Paths on the new host (https://openapi.rakuten.co.jp), one service prefix per API family. */
const OPENAPI_PATHS: Readonly<Record<RakutenApi, string>> = {
  item: `/ichibams/api/IchibaItem/Search/${API_VERSIONS.item}`,
  ranking: `/ichibaranking/api/IchibaItem/Ranking/${API_VERSIONS.ranking}`,
  genre: `/ichibagt/api/IchibaGenre/Search/${API_VERSIONS.genre}`,
  tag: `/ichibagt/api/IchibaTag/Search/${API_VERSIONS.tag}`,
};

/** Paths under the old host's `/services/api` root. */
const LEGACY_PATHS: Readonly<Record<RakutenApi, string>> = {
  item: `/IchibaItem/Search/${API_VERSIONS.item}`,
  ranking: `/IchibaItem/Ranking/${API_VERSIONS.ranking}`,
  genre: `/IchibaGenre/Search/${API_VERSIONS.genre}`,
  tag: `/IchibaTag/Search/${API_VERSIONS.tag}`,
};

/** The path of `api` for a host style, relative to the base URL. */
export function endpointPath(api: RakutenApi, style: "openapi" | "legacy"): string {
  return (style === "openapi" ? OPENAPI_PATHS : LEGACY_PATHS)[api];
}

/** Which API (and host style) a request path names, for the fake; undefined when none. */
export function apiOfPath(
  path: string,
): { api: RakutenApi; style: "openapi" | "legacy" } | undefined {
  for (const style of ["openapi", "legacy"] as const) {
    for (const api of Object.keys(API_VERSIONS) as RakutenApi[]) {
      if (path.endsWith(endpointPath(api, style))) {
        // A legacy path is a suffix of the openapi one; the openapi check runs first.
        return { api, style };
      }
    }
  }
  return undefined;
}
