// Independent JWS checks for the push conformance tests (Node's crypto, not the adapter's code).
import { createPublicKey, verify, type KeyObject } from "node:crypto";

export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** Whether the signature verifies with the given public key. */
  valid: boolean;
}

const json = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;

/**
 * Decodes a compact JWS and verifies it: RS256 (PKCS#1 v1.5) or ES256 with the raw r||s
 * signature JWS uses (`dsaEncoding: "ieee-p1363"`), never DER.
 */
export function verifyJwt(token: string, publicKey: KeyObject | string): DecodedJwt {
  const [header, claims, signature] = token.split(".");
  if (!header || !claims || !signature) throw new Error(`not a compact JWS: ${token}`);
  const decodedHeader = json(header);
  const key = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
  const data = Buffer.from(`${header}.${claims}`);
  const sig = Buffer.from(signature, "base64url");
  const valid =
    decodedHeader.alg === "ES256"
      ? sig.length === 64 && verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, sig)
      : decodedHeader.alg === "RS256" && verify("sha256", data, key, sig);
  return { header: decodedHeader, claims: json(claims), valid };
}

/** The same token with a claim changed (`iat` one second later) and the old signature: it must no longer verify. */
export function tamper(token: string): string {
  const [header, claims, signature] = token.split(".") as [string, string, string];
  const changed = { ...json(claims), iat: Number(json(claims).iat) + 1 };
  return `${header}.${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${signature}`;
}
