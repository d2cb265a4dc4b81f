/**
 * Standard Webhooks signing (standardwebhooks.com): `webhook-signature` is `v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">`, keyed with the base64-decoded part of the secret after `whsec_`.
 */
import { base64ToBytes, bytesToBase64 } from "../../../lib/base64";

const SECRET_PREFIX = "whsec_";
/** Standard Webhooks asks for 24 to 64 bytes; 32 match the HMAC-SHA256 block's key size well. */
const SECRET_BYTES = 32;

const encoder = new TextEncoder();

export const newWebhookSecret = () => `${SECRET_PREFIX}${bytesToBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;

async function signOne(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    base64ToBytes(secret.slice(SECRET_PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return `v1,${bytesToBase64(await crypto.subtle.sign("HMAC", key, encoder.encode(content)))}`;
}

/** The `webhook-signature` value: one `v1,` entry per secret (two during a rotation's overlap), space-separated. */
export async function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Promise<string> {
  const content = `${id}.${timestampSeconds}.${body}`;
  return (await Promise.all(secrets.map((secret) => signOne(secret, content)))).join(" ");
}
