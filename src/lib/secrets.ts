/**
 * AES-256-GCM for integration credentials and secret variables at rest, and HMAC for signed
 * tracking links, both from the Worker secret ENCRYPTION_KEY (base64 of 32 bytes).
 *
 * Ciphertext: `v2.<iv>.<data>`, encrypted with the row it belongs to as additional authenticated
 * data (`integrationAad`, `variableAad`), so a ciphertext copied into another row or environment
 * does not decrypt. `v1.<iv>.<data>` (before 0.6, no AAD) is still read, and written again as v2
 * the next time its row is written.
 */
import { base64ToBytes, base64UrlToBytes, bytesToBase64Url } from "./base64";
import { hkdfKey, timingSafeEqual } from "./crypto";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function keyBytes(secret: string | undefined): Uint8Array<ArrayBuffer> {
  if (!secret) throw new Error("ENCRYPTION_KEY is not set: run `npm start` locally or `wrangler secret put ENCRYPTION_KEY`.");
  const bytes = base64ToBytes(secret);
  if (bytes.byteLength !== 32) throw new Error("ENCRYPTION_KEY must be base64 of 32 bytes.");
  return bytes;
}

const aesKey = (secret: string | undefined) => crypto.subtle.importKey("raw", keyBytes(secret), "AES-GCM", false, ["encrypt", "decrypt"]);

/** What a stored ciphertext is bound to: its row and environment. */
export const integrationAad = (environmentId: string, integrationId: string) => `integration:${environmentId}:${integrationId}`;
export const variableAad = (environmentId: string, key: string) => `variable:${environmentId}:${key}`;
export const webhookEndpointAad = (environmentId: string, endpointId: string) => `webhook-endpoint:${environmentId}:${endpointId}`;

/** A stored value that does not decrypt for its row: moved from another row, tampered with, or under another key. */
export class CiphertextError extends Error {
  override readonly name = "CiphertextError";
}

/** Whether a stored ciphertext predates row binding and should be written again. */
export const isUnboundCiphertext = (text: string) => text.startsWith("v1.");

export async function encryptJson(secret: string | undefined, value: unknown, aad: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(aad) },
    await aesKey(secret),
    encoder.encode(JSON.stringify(value)),
  );
  return `v2.${bytesToBase64Url(iv)}.${bytesToBase64Url(new Uint8Array(data))}`;
}

/** Throws CiphertextError when the value does not decrypt for `aad` (ENCRYPTION_KEY problems keep their own message). */
export async function decryptJson<T>(secret: string | undefined, text: string, aad: string): Promise<T> {
  const [version, iv, data] = text.split(".");
  if ((version !== "v1" && version !== "v2") || !iv || !data) throw new CiphertextError("Unknown ciphertext format.");
  const key = await aesKey(secret);
  let plain: ArrayBuffer;
  try {
    const params =
      version === "v2"
        ? { name: "AES-GCM", iv: base64UrlToBytes(iv), additionalData: encoder.encode(aad) }
        : { name: "AES-GCM", iv: base64UrlToBytes(iv) };
    plain = await crypto.subtle.decrypt(params, key, base64UrlToBytes(data));
  } catch {
    throw new CiphertextError("The stored value does not decrypt for this row: it was moved from another row or changed.");
  }
  return JSON.parse(decoder.decode(plain)) as T;
}

/**
 * An HMAC-SHA256 key derived from ENCRYPTION_KEY for one purpose (`info`), so that the encryption
 * key itself never signs anything and a signature made for one purpose is worthless for another.
 */
export const signingKey = (secret: string | undefined, info: string): Promise<CryptoKey> =>
  hkdfKey(keyBytes(secret), info, { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign", "verify"]);

const hmacKey = (secret: string | undefined) => signingKey(secret, "clarion-link-signing");

export async function sign(secret: string | undefined, content: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(content));
  return bytesToBase64Url(new Uint8Array(mac)).slice(0, 32);
}

export async function verifySignature(secret: string | undefined, content: string, signature: string): Promise<boolean> {
  return timingSafeEqual(await sign(secret, content), signature);
}
