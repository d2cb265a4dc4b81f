import { bytesToBase64 } from "./base64";
import { hex } from "./hex";
import { PromiseCache } from "./promise-cache";

const encoder = new TextEncoder();

export async function sha256Hex(input: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(input));
  return hex(digest);
}

export const byteLength = (text: string) => encoder.encode(text).byteLength;

/**
 * JSON with object keys sorted, so equal values always hash equally. The text is what stored
 * fingerprints were made from, so it must not change: JSON.stringify of a copy whose objects have
 * their keys in sorted order (integer-like keys still come first, in numeric order, as in any
 * object). Copying first and stringifying once is two to three times as fast as a replacer
 * function, which takes V8's JSON.stringify off its fast path (2.5 % of a bulk accept's CPU).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  // As JSON.stringify does before a replacer sees the value (a Date, for one).
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return sortedKeys((json as () => unknown).call(value));
  if (Array.isArray(value)) return value.map(sortedKeys);
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = sortedKeys((value as Record<string, unknown>)[key]);
    // A key named "__proto__" (JSON.parse makes one) stays an own key, as Object.fromEntries kept
    // it; assigned, it would set the prototype. Not a null-prototype object for all: V8 keeps
    // those as dictionaries, which JSON.stringify writes about half as fast.
    if (key === "__proto__") Object.defineProperty(sorted, key, { value: v, enumerable: true, configurable: true, writable: true });
    else sorted[key] = v;
  }
  return sorted;
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
