import { redactText } from "../../infra/logging/redact.ts";
import type { QueryParams } from "./http-client-types.ts";

/** The query's values as URL parameters (arrays repeat, null and undefined left out). */
function queryParams(query: QueryParams | undefined): URLSearchParams | undefined {
  if (query === undefined) return undefined;
  let params: URLSearchParams | undefined;
  for (const [name, value] of Object.entries(query)) {
    if (value === null || value === undefined) continue;
    params ??= new URLSearchParams();
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) params.append(name, String(v));
  }
  return params;
}

/** The params, or undefined when there are none. */
function nonEmpty(params: URLSearchParams): URLSearchParams | undefined {
  return params.size > 0 ? params : undefined;
}

/**
 * The absolute URL of `target` (relative targets are appended to `base`, a URL ending in `/`)
 * with `query` after the target's own query.
 */
export function resolveUrl(
  base: string | undefined,
  target: string,
  query?: QueryParams | URLSearchParams,
): URL {
  const params = query instanceof URLSearchParams ? nonEmpty(query) : queryParams(query);
  // Usually the query is appended to the text and the URL parsed once; a target with its own
  // query or fragment is parsed first and the query merged after it.
  const inline = params !== undefined && !/[?#]/.test(target);
  const text = inline ? `${target}?${params.toString()}` : target;
  let url: URL;
  try {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || base === undefined) {
      url = new URL(text);
    } else {
      // `new URL("/x", "https://h/base")` would drop `/base`; joining keeps it.
      url = new URL(text.replace(/^\/+/, ""), base);
    }
  } catch {
    // No cause: Node's URL error carries the raw input, which may hold a key.
    throw new TypeError(`Invalid URL: ${redactText(target)}`);
  }
  if (params !== undefined && !inline) {
    const merged = new URLSearchParams(url.search);
    for (const [name, value] of params) merged.append(name, value);
    url.search = merged.toString();
  }
  return url;
}
