import { type CryptoKey, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";

/** Why a proof was refused (the fake's 401 body names it). */
export type DpopRejection =
  | "missing"
  | "malformed"
  | "bad_header"
  | "bad_signature"
  | "htm_mismatch"
  | "htu_mismatch"
  | "stale_iat"
  | "jti_replayed";

/** How long a proof's `iat` may lie from the fake's clock, either way. */
const MAX_SKEW_S = 60;

/**
 * Checks DPoP proofs as Mercari does: ES256 JWT, `typ: dpop+jwt`, a public P-256 `jwk` in
 * the header that verifies the signature, `htm`/`htu` of this request, `iat` within a minute,
 * and a `jti` never seen before.
 */
export class DpopVerifier {
  readonly #seen = new Map<string, number>();
  /** Imported public keys by their coordinates: a client keeps one key for its process. */
  readonly #keys = new Map<string, CryptoKey>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** null when the proof is good (its jti is then spent), else why not. */
  async verify(proof: string | null, method: string, url: string): Promise<DpopRejection | null> {
    if (!proof) return "missing";
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(proof);
    } catch {
      return "malformed";
    }
    const jwk = header.jwk;
    if (
      header.typ !== "dpop+jwt" ||
      header.alg !== "ES256" ||
      !jwk ||
      jwk.kty !== "EC" ||
      jwk.crv !== "P-256" ||
      "d" in jwk
    ) {
      return "bad_header";
    }
    let payload: Record<string, unknown>;
    try {
      const key = await this.#key(jwk);
      ({ payload } = await jwtVerify(proof, key, { typ: "dpop+jwt", algorithms: ["ES256"] }));
    } catch {
      return "bad_signature";
    }
    if (payload.htm !== method.toUpperCase()) return "htm_mismatch";
    const u = new URL(url);
    if (payload.htu !== `${u.origin}${u.pathname}`) return "htu_mismatch";
    const nowS = this.#now() / 1000;
    if (typeof payload.iat !== "number" || Math.abs(nowS - payload.iat) > MAX_SKEW_S) {
      return "stale_iat";
    }
    if (typeof payload.jti !== "string" || payload.jti === "") return "malformed";
    this.#forgetOld(nowS);
    if (this.#seen.has(payload.jti)) return "jti_replayed";
    this.#seen.set(payload.jti, payload.iat);
    return null;
  }

  async #key(jwk: JWK): Promise<CryptoKey> {
    const id = `${jwk.x}.${jwk.y}`;
    let key = this.#keys.get(id);
    if (!key) {
      key = (await importJWK(
        { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
        "ES256",
      )) as CryptoKey;
      if (this.#keys.size > 1_000) this.#keys.clear();
      this.#keys.set(id, key);
    }
    return key;
  }

  /** A jti older than the skew window can no longer pass the iat check: forget it. */
  #forgetOld(nowS: number): void {
    if (this.#seen.size < 10_000) return;
    for (const [jti, iat] of this.#seen) {
      if (nowS - iat > MAX_SKEW_S * 2) this.#seen.delete(jti);
    }
  }
}
