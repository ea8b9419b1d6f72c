/** Key names whose values are secrets, compared case-insensitively without `_`/`-`. */
const SECRET_KEYS = new Set([
  "key",
  "apikey",
  "accesskey",
  "accesskeyid",
  "secretaccesskey",
  "secret",
  "clientsecret",
  "password",
  "pass",
  "token",
  "accesstoken",
  "refreshtoken",
  "authorization",
  "proxyauthorization",
  "cookie",
  "setcookie",
  "applicationid",
  "affiliateid",
  "xapikey",
]);

export const REDACTED = "[REDACTED]";

/** True when a field or query-parameter name holds a secret. */
export function isSecretKey(name: string): boolean {
  return SECRET_KEYS.has(name.toLowerCase().replace(/[_-]/g, ""));
}

// A name=value pair after `?`, `&`, `;`, whitespace or at the start: query strings and form bodies.
const QUERY_PARAM = /(^|[?&;\s])([^=&;#\s?]+)=([^&;#\s"']*)/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
// `scheme://user:password@`, also with the `:` of the scheme missing (a typo). The password runs
// to the last `@` of the word: an unencoded `@` or `/` in it must not leave its tail printed.
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:?\/\/)([^:@/\s]*):([^\s"'<>]+)@/gi;
/** `host:8080/path@x` read as user:password: a port followed by a path, not a password. */
const PORT_AND_PATH = /^\d{1,5}\//;

/** A value some code already masked (`***`, `[REDACTED]`): left as it is. */
const MASKED = /^(\*+|\[REDACTED\])[.,:)]*$/;

/** Shorter values are not remembered: masking them would hide ordinary words and numbers. */
const MIN_REMEMBERED_LENGTH = 8;
/** Secret values read from the environment, and their URL-encoded forms (rememberSecret). */
const remembered = new Set<string>();

/**
 * Remembers a credential read from the environment (an API key, an application id): from now
 * on redactText masks it wherever it appears, also where no name says it is a secret, e.g. in
 * an error body that quotes the key back ("Incorrect API key provided: sk-…").
 */
export function rememberSecret(value: string | undefined): void {
  const v = value?.trim();
  if (v === undefined || v.length < MIN_REMEMBERED_LENGTH) return;
  remembered.add(v);
  remembered.add(encodeURIComponent(v));
}

function maskRemembered(text: string): string {
  let out = text;
  for (const secret of remembered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** Removes secrets from free text: remembered values, URL query params, bearer tokens, URL passwords. */
export function redactText(text: string): string {
  return maskRemembered(text)
    .replace(QUERY_PARAM, (m, sep: string, name: string, value: string) =>
      isSecretKey(decodeURIComponentSafe(name)) && !MASKED.test(value)
        ? `${sep}${name}=${REDACTED}`
        : m,
    )
    .replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(URL_CREDENTIALS, (m, scheme: string, user: string, password: string) =>
      MASKED.test(password) || PORT_AND_PATH.test(password) ? m : `${scheme}${user}:${REDACTED}@`,
    );
}

/**
 * A string that is one URL, fit to print: the password (up to the URL's last `@`, so one with an
 * unencoded `@`, `/` or space is hidden whole) and a `password=` in its query become `***`.
 */
export function redactUrlPassword(url: string): string {
  return url
    .replace(/^(\s*[a-z][a-z0-9+.-]*:?\/\/[^:@/\s]*):.*@/is, (m, head: string) =>
      MASKED.test(m.slice(head.length + 1, -1)) ? m : `${head}:***@`,
    )
    .replace(/([?&](?:password|sslpassword)=)[^&#]*/gi, "$1***");
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Deep copy of a JSON-like value with secrets inside its strings redacted (keys kept as they are). */
export function redactStrings(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(redactStrings);
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v)]));
}

/**
 * A fetch Headers object, told by its tag: naming the global `Headers` makes Node load its
 * whole fetch implementation (~20 ms), which a command that never fetches should not pay.
 */
function isHeaders(value: object): value is Headers {
  return Object.prototype.toString.call(value) === "[object Headers]";
}

/** Deep copy of a log value with secret fields and secrets inside strings redacted. */
export function redactSecrets(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return redactText(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[Circular]";
  seen.add(value);
  if (value instanceof Error) {
    const out: Record<string, unknown> = {
      type: value.name,
      message: redactText(value.message),
      stack: value.stack ? redactText(value.stack) : undefined,
    };
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretKey(k) ? REDACTED : redactSecrets(v, seen);
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, seen));
  if (value instanceof Date) return value;
  if (isHeaders(value)) return redactSecrets(Object.fromEntries(value.entries()), seen);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) ? REDACTED : redactSecrets(v, seen);
  }
  return out;
}
