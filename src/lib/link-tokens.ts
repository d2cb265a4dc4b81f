/**
 * Preference-link tokens: `<payload>.<mac>`, both base64url. The payload names the environment,
 * the subscriber and (for links minted with a message) the workflow; the MAC is HMAC-SHA-256
 * under the environment's own link secret, so a token never works in another environment and
 * rotating that secret revokes every link at once. Tokens do not expire.
 */
import { base64ToBytes, bytesToBase64 } from "./base64";

export interface LinkClaims {
  environmentId: string;
  subscriberId: string;
  /** The workflow the message came from; null for links minted by a backend. */
  workflowKey: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Bytes of the MAC kept in the token: 128 bits is beyond guessing and keeps URLs short. */
const MAC_BYTES = 16;
/** Longer tokens are refused before any parsing or crypto. */
export const MAX_TOKEN_LENGTH = 1024;

const toBase64Url = (bytes: Uint8Array) => bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => base64ToBytes(text.replaceAll("-", "+").replaceAll("_", "/"));

/** A fresh link secret: 32 random bytes, base64. */
export const newLinkSecret = () => bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));

const hmacKey = (secret: string) =>
  crypto.subtle.importKey("raw", base64ToBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);

async function mac(secret: string, payload: string): Promise<Uint8Array> {
  const full = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(payload));
  return new Uint8Array(full).subarray(0, MAC_BYTES);
}

export async function mintToken(secret: string, claims: LinkClaims): Promise<string> {
  const payload = toBase64Url(encoder.encode(JSON.stringify([claims.environmentId, claims.subscriberId, claims.workflowKey])));
  return `${payload}.${toBase64Url(await mac(secret, payload))}`;
}

/** The claims a token states, unverified: which environment's secret to check it with. Null when it is not a token. */
export function readClaims(token: string): LinkClaims | null {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return null;
  try {
    const parsed: unknown = JSON.parse(decoder.decode(fromBase64Url(token.split(".")[0]!)));
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [environmentId, subscriberId, workflowKey] = parsed as unknown[];
    if (typeof environmentId !== "string" || typeof subscriberId !== "string") return null;
    if (workflowKey !== null && typeof workflowKey !== "string") return null;
    return { environmentId, subscriberId, workflowKey };
  } catch {
    return null;
  }
}

/** Whether the token's MAC is right under this secret; compared in constant time. */
export async function verifyToken(secret: string, token: string): Promise<boolean> {
  const [payload, given] = token.split(".");
  if (!payload || !given) return false;
  let expected: Uint8Array;
  let actual: Uint8Array;
  try {
    expected = await mac(secret, payload);
    actual = fromBase64Url(given);
  } catch {
    return false;
  }
  // Re-encoding rejects a MAC with non-canonical trailing bits, so each link has one spelling.
  if (actual.length !== expected.length || toBase64Url(actual) !== given) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ actual[i]!;
  return diff === 0;
}

export interface PreferenceLinks {
  /** `POST` here unsubscribes in one click (RFC 8058); `GET` shows a page with one button. */
  unsubscribeUrl: string;
  /** The hosted preference page. */
  preferencesUrl: string;
}

/** Both links of one subscriber (and workflow), signed with the environment's link secret. */
export async function preferenceLinks(publicUrl: string, secret: string, claims: LinkClaims): Promise<PreferenceLinks> {
  const token = await mintToken(secret, claims);
  const base = publicUrl.replace(/\/+$/, "");
  return { unsubscribeUrl: `${base}/u/${token}`, preferencesUrl: `${base}/p/${token}` };
}
