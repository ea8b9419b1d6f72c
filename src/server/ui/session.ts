import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Name of the session cookie (HttpOnly, SameSite=Strict, Path=/ui). */
export const SESSION_COOKIE = "tidemark_session";
/** How long a sign-in lasts. */
export const SESSION_TTL_SECONDS = 12 * 3600;

/** A verified session: which token signed in (by digest prefix, never the token) and a nonce. */
export interface Session {
  /** First 16 hex characters of the token's SHA-256: ties the session to a configured token. */
  readonly tokenId: string;
  readonly nonce: string;
  /** Expiry, epoch seconds. */
  readonly exp: number;
}

const b64 = (buf: Buffer | string) => Buffer.from(buf).toString("base64url");

/** SHA-256 hex of a value. */
function sha256(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/**
 * Signs and checks sessions and CSRF tokens. The key is derived from the configured API tokens,
 * so every `serve` process with the same configuration accepts the same cookies, and any change
 * to the list of tokens signs every session out. With authentication off (`--insecure-no-auth`)
 * the key is random per process.
 */
export class SessionKeys {
  readonly #key: Buffer;
  readonly #tokenDigests: Map<string, Buffer>;

  constructor(readonly tokens: readonly string[] | undefined) {
    this.#key = tokens
      ? createHash("sha256")
          .update(`tidemark-ui-session\0${[...tokens].sort().join("\0")}`)
          .digest()
      : randomBytes(32);
    this.#tokenDigests = new Map((tokens ?? []).map((t) => [sha256(t).slice(0, 16), digest(t)]));
  }

  /** The id of the configured token equal to `given` (constant time), or undefined. */
  matchToken(given: string): string | undefined {
    const d = digest(given);
    let found: string | undefined;
    for (const [id, expected] of this.#tokenDigests) {
      if (timingSafeEqual(d, expected) && found === undefined) found = id;
    }
    return found;
  }

  /** A new session for the token id, expiring `ttl` seconds after `nowSeconds`. */
  issue(tokenId: string, nowSeconds: number, ttl = SESSION_TTL_SECONDS): string {
    const payload: Session = {
      tokenId,
      nonce: randomBytes(12).toString("hex"),
      exp: nowSeconds + ttl,
    };
    const body = b64(JSON.stringify(payload));
    return `${body}.${this.#mac(`session:${body}`)}`;
  }

  /** The session in a cookie value when its signature holds, it has not expired and its token is still configured. */
  verify(cookie: string | undefined, nowSeconds: number): Session | undefined {
    if (!cookie) return undefined;
    const [body, mac, extra] = cookie.split(".");
    if (!body || !mac || extra !== undefined) return undefined;
    if (!safeEqual(mac, this.#mac(`session:${body}`))) return undefined;
    let s: Session;
    try {
      s = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Session;
    } catch {
      return undefined;
    }
    if (typeof s.exp !== "number" || s.exp <= nowSeconds) return undefined;
    if (typeof s.nonce !== "string" || typeof s.tokenId !== "string") return undefined;
    if (this.tokens && !this.#tokenDigests.has(s.tokenId)) return undefined;
    return s;
  }

  /** The CSRF token of a session (or of a sign-in form nonce). */
  csrf(nonce: string): string {
    return this.#mac(`csrf:${nonce}`);
  }

  /** True when `given` is the CSRF token of `nonce`. */
  checkCsrf(nonce: string, given: string | undefined): boolean {
    return given !== undefined && safeEqual(given, this.csrf(nonce));
  }

  #mac(value: string): string {
    return b64(createHmac("sha256", this.#key).update(value, "utf8").digest());
  }
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** Constant-time string comparison (lengths compared first; they are not secret). */
function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
