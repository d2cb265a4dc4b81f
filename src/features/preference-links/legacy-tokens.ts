/**
 * The tokens of 0.12 and before: `<payload>.<mac>`, the payload readable base64url of
 * `[environmentId, subscriberId, workflowKey]`, the MAC HMAC-SHA-256 under the environment's link
 * secret. None is minted any more; emails already sent still carry them in `List-Unsubscribe`, so
 * they are read for one-click unsubscribe only (see resolve.ts).
 */
import { base64ToBytes, base64UrlToBytes, bytesToBase64Url } from "../../lib/base64";
import { type LinkClaims, MAX_TOKEN_LENGTH } from "../../lib/link-tokens";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAC_BYTES = 16;

async function mac(secret: string, payload: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", base64ToBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload))).subarray(0, MAC_BYTES);
}

/** The claims a 0.12 token states, unverified: which environment's secret to check it with. Null when it is not one. */
export function readLegacyClaims(token: string): LinkClaims | null {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return null;
  try {
    const parsed: unknown = JSON.parse(decoder.decode(base64UrlToBytes(token.split(".")[0]!)));
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [environmentId, subscriberId, workflowKey] = parsed as unknown[];
    if (typeof environmentId !== "string" || typeof subscriberId !== "string") return null;
    if (workflowKey !== null && typeof workflowKey !== "string") return null;
    return { environmentId, subscriberId, workflowKey };
  } catch {
    return null;
  }
}

/** Whether a 0.12 token's MAC is right under this secret; compared in constant time. */
export async function verifyLegacyToken(secret: string, token: string): Promise<boolean> {
  const [payload, given] = token.split(".");
  if (!payload || !given) return false;
  let expected: Uint8Array;
  let actual: Uint8Array;
  try {
    expected = await mac(secret, payload);
    actual = base64UrlToBytes(given);
  } catch {
    return false;
  }
  if (actual.length !== expected.length || bytesToBase64Url(actual) !== given) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ actual[i]!;
  return diff === 0;
}
