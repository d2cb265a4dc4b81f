/**
 * Inbox session tokens: what `POST /novu/v1/inbox/session` hands a browser and every Inbox call
 * and the socket (`/novu/socket?token=`) then carry. `<payload>.<mac>`, both base64url; the payload
 * is JSON `{env, sub, exp}` (exp in Unix seconds) and the MAC is HMAC-SHA-256 under a key derived
 * (HKDF) from the environment's inbox hmacSecret, so a token works in its own environment only
 * and rotating the secret ends every session at once. The browser treats it as opaque.
 */
import { base64ToBytes, bytesToBase64 } from "../../lib/base64";

export interface SessionClaims {
  environmentId: string;
  subscriberId: string;
}

/** How long a session lasts: a working day of an open tab; the Inbox asks for a new one on load. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** Longer tokens are refused before any parsing or crypto. */
const MAX_TOKEN_LENGTH = 2048;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const toBase64Url = (bytes: Uint8Array) => bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => base64ToBytes(text.replaceAll("-", "+").replaceAll("_", "/"));

async function sessionKey(hmacSecret: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(hmacSecret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: encoder.encode("clarion inbox session v1") },
    material,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}

export async function signSessionToken(
  hmacSecret: string,
  claims: SessionClaims,
  now = new Date(),
  ttlSeconds = SESSION_TTL_SECONDS,
): Promise<string> {
  const body = { env: claims.environmentId, sub: claims.subscriberId, exp: Math.floor(now.getTime() / 1000) + ttlSeconds };
  const payload = toBase64Url(encoder.encode(JSON.stringify(body)));
  const mac = await crypto.subtle.sign("HMAC", await sessionKey(hmacSecret), encoder.encode(payload));
  return `${payload}.${toBase64Url(new Uint8Array(mac))}`;
}

/** What a token states, unverified: which environment's secret to check it with. Null when it is not a token. */
function readPayload(token: string): { env: string; sub: string; exp: number } | null {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return null;
  try {
    const parsed: unknown = JSON.parse(decoder.decode(fromBase64Url(token.split(".")[0]!)));
    if (typeof parsed !== "object" || parsed === null) return null;
    const { env, sub, exp } = parsed as Record<string, unknown>;
    if (typeof env !== "string" || typeof sub !== "string" || typeof exp !== "number") return null;
    return { env, sub, exp };
  } catch {
    return null;
  }
}

/**
 * The subscriber and environment a token is for, or null when it is malformed, expired or not
 * signed with that environment's secret. `secretOf` answers the environment's hmacSecret (null:
 * no such environment).
 */
export async function verifySessionToken(
  token: string,
  secretOf: (environmentId: string) => Promise<string | null>,
  now = new Date(),
): Promise<SessionClaims | null> {
  const payload = readPayload(token);
  if (!payload || payload.exp * 1000 <= now.getTime()) return null;
  const secret = await secretOf(payload.env);
  if (secret === null) return null;
  const [body, mac] = token.split(".") as [string, string];
  let given: Uint8Array;
  try {
    given = fromBase64Url(mac);
  } catch {
    return null;
  }
  // subtle.verify compares in constant time.
  const valid = await crypto.subtle.verify("HMAC", await sessionKey(secret), given, encoder.encode(body));
  return valid ? { environmentId: payload.env, subscriberId: payload.sub } : null;
}
