import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { createDpopSigner, processDpopSigner } from "../../src/pipelines/mercari/client/dpop.ts";
import { DpopVerifier } from "../../src/pipelines/mercari/fake/dpop-verifier.ts";

const URL_SEARCH = "http://127.0.0.1:4010/v2/entities:search";

describe("DPoP proofs", () => {
  it("are ES256 JWTs with a public P-256 key and the request's method and URL", async () => {
    const signer = await createDpopSigner();
    const proof = await signer.proof("post", `${URL_SEARCH}?x=1`);
    const header = decodeProtectedHeader(proof);
    expect(header).toMatchObject({ typ: "dpop+jwt", alg: "ES256" });
    expect(Object.keys(header.jwk ?? {}).sort()).toEqual(["crv", "kty", "x", "y"]);
    expect(header.jwk).toMatchObject({ kty: "EC", crv: "P-256" });
    const payload = decodeJwt(proof);
    expect(payload).toMatchObject({ htm: "POST", htu: URL_SEARCH });
    expect(Math.abs((payload.iat ?? 0) - Date.now() / 1000)).toBeLessThan(5);
    expect(typeof payload.jti).toBe("string");
    expect(typeof payload.uuid).toBe("string");
    expect(await new DpopVerifier().verify(proof, "POST", URL_SEARCH)).toBeNull();
  });

  it("a fresh jti on every proof; one key for the whole process", async () => {
    const a = await processDpopSigner();
    const b = await processDpopSigner();
    expect(a).toBe(b);
    const p1 = await a.proof("GET", URL_SEARCH);
    const p2 = await a.proof("GET", URL_SEARCH);
    expect(decodeJwt(p1).jti).not.toBe(decodeJwt(p2).jti);
    expect(decodeProtectedHeader(p1).jwk).toEqual(decodeProtectedHeader(p2).jwk);
  });

  it("the verifier refuses a missing, tampered, replayed, stale or misdirected proof", async () => {
    const verifier = new DpopVerifier();
    const signer = await createDpopSigner();
    expect(await verifier.verify(null, "GET", URL_SEARCH)).toBe("missing");
    expect(await verifier.verify("not.a.jwt", "GET", URL_SEARCH)).toBe("malformed");

    const good = await signer.proof("GET", URL_SEARCH);
    const [h, p, s] = good.split(".");
    const forged = Buffer.from(
      JSON.stringify({ ...decodeJwt(good), htu: "http://elsewhere/x" }),
    ).toString("base64url");
    expect(await verifier.verify(`${h}.${forged}.${s}`, "GET", URL_SEARCH)).toBe("bad_signature");
    expect(await verifier.verify(`${h}.${p}.${s}`, "GET", URL_SEARCH)).toBeNull();
    expect(await verifier.verify(good, "GET", URL_SEARCH)).toBe("jti_replayed");

    const old = await createDpopSigner(() => Date.now() - 120_000);
    expect(await verifier.verify(await old.proof("GET", URL_SEARCH), "GET", URL_SEARCH)).toBe(
      "stale_iat",
    );
    const future = await createDpopSigner(() => Date.now() + 120_000);
    expect(await verifier.verify(await future.proof("GET", URL_SEARCH), "GET", URL_SEARCH)).toBe(
      "stale_iat",
    );
    expect(await verifier.verify(await signer.proof("GET", URL_SEARCH), "POST", URL_SEARCH)).toBe(
      "htm_mismatch",
    );
    expect(
      await verifier.verify(await signer.proof("GET", URL_SEARCH), "GET", `${URL_SEARCH}x`),
    ).toBe("htu_mismatch");
  });

  it("refuses a header that is not dpop+jwt or carries a private key", async () => {
    const verifier = new DpopVerifier();
    const { SignJWT, generateKeyPair, exportJWK } = await import("jose");
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = await exportJWK(privateKey);
    const claims = { iat: Math.floor(Date.now() / 1000), jti: "j1", htm: "GET", htu: URL_SEARCH };
    const leaky = await new SignJWT(claims)
      .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk })
      .sign(privateKey);
    expect(await verifier.verify(leaky, "GET", URL_SEARCH)).toBe("bad_header");
    const { d: _d, ...pub } = jwk;
    const wrongTyp = await new SignJWT(claims)
      .setProtectedHeader({ typ: "JWT", alg: "ES256", jwk: pub })
      .sign(privateKey);
    expect(await verifier.verify(wrongTyp, "GET", URL_SEARCH)).toBe("bad_header");
  });
});
