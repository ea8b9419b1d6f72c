/** Where sign-in may send a browser afterwards: a path inside the dashboard, nothing else. */

const FALLBACK = "/ui";
/** Backslashes (browsers read them as `/`) and control characters (header splitting, tabs). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const UNSAFE_CHARS = /[\\\u0000-\u001f\u007f]/;

/**
 * `path` with `.` and `..` segments resolved the way a browser resolves them, and runs of `/`
 * collapsed; `..` above the root stays at the root.
 */
function removeDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split("/").slice(1);
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (segment === "..") {
      out.pop();
      if (last) out.push("");
    } else if (segment === ".") {
      if (last) out.push("");
    } else if (segment !== "" || last) {
      out.push(segment);
    }
  }
  return `/${out.join("/")}`;
}

/** The path decoded once; undefined when it is not valid percent-encoding. */
function decodedPath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * A path inside the dashboard (`/ui` or below) to return to after sign-in; anything else becomes
 * `/ui`. The path is judged as the browser will read it: percent-escapes decoded (`%2e%2e` is
 * `..`, `%2f` is `/`), dot segments resolved and repeated slashes collapsed, so
 * `/ui/../..//evil.example` cannot lead to another site. Backslashes, control characters, and
 * escapes that still decode to `%` (double encoding) are refused outright. The query is kept.
 */
export function safeNext(next: string | undefined): string {
  if (next === undefined || UNSAFE_CHARS.test(next)) return FALLBACK;
  const cut = next.search(/[?#]/);
  const rawPath = cut === -1 ? next : next.slice(0, cut);
  // A fragment is the browser's own; only the query is worth keeping.
  const query = cut === -1 || next[cut] === "#" ? "" : next.slice(cut).replace(/#.*$/s, "");
  if (!rawPath.startsWith("/")) return FALLBACK;
  const decoded = decodedPath(rawPath);
  if (decoded === undefined || decoded.includes("%") || UNSAFE_CHARS.test(decoded)) {
    return FALLBACK;
  }
  const path = removeDotSegments(decoded);
  if (path !== "/ui" && !path.startsWith("/ui/")) return FALLBACK;
  const encoded = path
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
  return encoded + query;
}
