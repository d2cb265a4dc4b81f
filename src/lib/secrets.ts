/**
 * AES-256-GCM for integration credentials at rest, and HMAC for signed tracking links, both
 * from the Worker secret ENCRYPTION_KEY (base64 of 32 bytes). Ciphertext: `v1.<iv>.<data>`.
 */
import { bytesToBase64 } from "./base64";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const toBase64Url = (bytes: Uint8Array) => bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => fromBase64(text.replaceAll("-", "+").replaceAll("_", "/"));

function keyBytes(secret: string | undefined): Uint8Array {
  if (!secret) throw new Error("ENCRYPTION_KEY is not set: run `npm start` locally or `wrangler secret put ENCRYPTION_KEY`.");
  const bytes = fromBase64(secret);
  if (bytes.byteLength !== 32) throw new Error("ENCRYPTION_KEY must be base64 of 32 bytes.");
  return bytes;
}

const aesKey = (secret: string | undefined) => crypto.subtle.importKey("raw", keyBytes(secret), "AES-GCM", false, ["encrypt", "decrypt"]);

export async function encryptJson(secret: string | undefined, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(secret), encoder.encode(JSON.stringify(value)));
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(data))}`;
}

export async function decryptJson<T>(secret: string | undefined, text: string): Promise<T> {
  const [version, iv, data] = text.split(".");
  if (version !== "v1" || !iv || !data) throw new Error("Unknown ciphertext format.");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64Url(iv) }, await aesKey(secret), fromBase64Url(data));
  return JSON.parse(decoder.decode(plain)) as T;
}

async function hmacKey(secret: string | undefined) {
  // A distinct key for signing, derived so that the encryption key itself never signs anything.
  const material = await crypto.subtle.importKey("raw", keyBytes(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("clarion-link-signing") },
    material,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}

export async function sign(secret: string | undefined, content: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(content));
  return toBase64Url(new Uint8Array(mac)).slice(0, 32);
}

export async function verifySignature(secret: string | undefined, content: string, signature: string): Promise<boolean> {
  const expected = await sign(secret, content);
  if (expected.length !== signature.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ signature.charCodeAt(i);
  return diff === 0;
}
