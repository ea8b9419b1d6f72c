import { generateKeyPairSync, type KeyObject, randomUUID, sign } from "node:crypto";

/** Signs DPoP proofs (ES256 JWTs) with one P-256 key, as Mercari's web client does. */
export interface DpopSigner {
  /** A fresh proof for one request: new `jti`, `iat` now, `htm`/`htu` of this request. */
  proof(method: string, url: string | URL): Promise<string>;
}

/** `htu` of a request: scheme, host and path, without query or fragment (RFC 9449). */
export function dpopHtu(url: string | URL): string {
  const u = new URL(String(url));
  return `${u.origin}${u.pathname}`;
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

/**
 * Creates a signer with a newly generated P-256 key; `now` is injectable for tests. Signing is
 * node:crypto's, synchronous (one proof per request, so it is on every request's path); the
 * fake checks the proofs with `jose`, an independent implementation.
 */
export async function createDpopSigner(now: () => number = Date.now): Promise<DpopSigner> {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { crv, kty, x, y } = publicKey.export({ format: "jwk" });
  const header = base64url(
    JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: { crv, kty, x, y } }),
  );
  // One session id per key, like the web client's per-tab uuid.
  const uuid = randomUUID();
  return {
    async proof(method, url) {
      const payload = base64url(
        JSON.stringify({
          iat: Math.floor(now() / 1000),
          jti: randomUUID(),
          htu: dpopHtu(url),
          htm: method.toUpperCase(),
          uuid,
        }),
      );
      return `${header}.${payload}.${es256(privateKey, `${header}.${payload}`)}`;
    },
  };
}

/** ES256 signature of a JWS signing input: raw r‖s (IEEE P1363), base64url. */
function es256(key: KeyObject, input: string): string {
  return sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }).toString(
    "base64url",
  );
}

let processSigner: Promise<DpopSigner> | undefined;

/** The process's signer: its key is generated once, on first use, and kept for the process. */
export function processDpopSigner(): Promise<DpopSigner> {
  processSigner ??= createDpopSigner();
  return processSigner;
}
