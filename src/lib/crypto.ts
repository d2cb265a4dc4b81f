import { bytesToBase64 } from "./base64";
import { hex } from "./hex";
import { PromiseCache } from "./promise-cache";

const encoder = new TextEncoder();

export async function sha256Hex(input: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(input));
  return hex(digest);
}

export const byteLength = (text: string) => encoder.encode(text).byteLength;

/** JSON with object keys sorted, so equal values always hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Compares two strings in time that does not depend on where they differ (only on their length). */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Keys derived in this isolate, by material and purpose: deriving is deterministic, and the same
 * secret's keys are asked for again and again (secrets.ts). Bounded, so a deployment with many
 * environments' secrets keeps only the most recent.
 */
const derived = new PromiseCache<CryptoKey>(256);

/** A key for one purpose (`info`) derived from secret key material by HKDF-SHA256 (no salt); non-extractable. */
export function hkdfKey(
  material: Uint8Array<ArrayBuffer>,
  info: string,
  algorithm: Parameters<SubtleCrypto["deriveKey"]>[2],
  usages: Parameters<SubtleCrypto["deriveKey"]>[4],
): Promise<CryptoKey> {
  const key = JSON.stringify([bytesToBase64(material), info, algorithm, usages]);
  return derived.get(key, () => deriveHkdf(material, info, algorithm, usages));
}

/** `hkdfKey` without its cache, for a caller that keeps the keys it derives itself (link-tokens.ts). */
export async function deriveHkdf(
  material: Uint8Array<ArrayBuffer>,
  info: string,
  algorithm: Parameters<SubtleCrypto["deriveKey"]>[2],
  usages: Parameters<SubtleCrypto["deriveKey"]>[4],
): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", material, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) },
    base,
    algorithm,
    false,
    usages,
  );
}
