/** Compact JWS for provider auth (Google service accounts RS256, APNs and VAPID ES256) with Web Crypto. */
import { bytesToBase64Url, textToBase64Url } from "../lib/base64";
import { pemToDer } from "./signatures";

const encoder = new TextEncoder();

export type JwtAlgorithm = "RS256" | "ES256";

const IMPORT: Record<JwtAlgorithm, Parameters<SubtleCrypto["importKey"]>[2]> = {
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  ES256: { name: "ECDSA", namedCurve: "P-256" },
};
const SIGN: Record<JwtAlgorithm, Parameters<SubtleCrypto["sign"]>[0]> = {
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  ES256: { name: "ECDSA", hash: "SHA-256" },
};

/** A PKCS#8 PEM private key (Google `private_key`, Apple `.p8`) as a signing key. */
export const importPkcs8 = (pem: string, algorithm: JwtAlgorithm) =>
  crypto.subtle.importKey("pkcs8", pemToDer(pem), IMPORT[algorithm], false, ["sign"]);

/**
 * Signs `claims` as a compact JWS. ECDSA signatures from Web Crypto are already the raw r||s
 * that JWS wants, so no DER conversion is needed.
 */
export async function signJwt(
  header: Record<string, unknown> & { alg: JwtAlgorithm },
  claims: Record<string, unknown>,
  key: CryptoKey,
): Promise<string> {
  const input = `${textToBase64Url(JSON.stringify(header))}.${textToBase64Url(JSON.stringify(claims))}`;
  const signature = await crypto.subtle.sign(SIGN[header.alg], key, encoder.encode(input));
  return `${input}.${bytesToBase64Url(signature)}`;
}

/** The armour of a PKCS#8 PEM key, for credential schemas (importing it is async, so sends check that). */
export const looksLikePem = (value: string) => /-----BEGIN PRIVATE KEY-----[\s\S]+-----END PRIVATE KEY-----/.test(value);

/**
 * Values that expire (OAuth access tokens, provider JWTs), keyed by the credentials they came
 * from. Only settled values are kept, never promises: a promise made for one Worker invocation
 * must not be awaited by another. Bounded so rotated credentials cannot grow it without end.
 */
export function expiringCache<T>(maxEntries = 100) {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return {
    get(key: string, now = Date.now()): T | undefined {
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key: string, value: T, expiresAt: number) {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt });
    },
    delete: (key: string) => void entries.delete(key),
  };
}
