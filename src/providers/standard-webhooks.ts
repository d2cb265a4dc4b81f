import { base64ToBytes, bytesToBase64 } from "../lib/base64";
import { timingSafeEqual } from "./signatures";

/** Standard Webhooks (also Svix): HMAC-SHA256 over `${id}.${timestamp}.${body}` with a `whsec_` secret. */
const encoder = new TextEncoder();
const TOLERANCE_SECONDS = 5 * 60;

async function hmac(secret: string, content: string): Promise<string> {
  const raw = base64ToBytes(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return bytesToBase64(await crypto.subtle.sign("HMAC", key, encoder.encode(content)));
}

export async function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  return `v1,${await hmac(secret, `${id}.${timestamp}.${body}`)}`;
}

/** The message id a Standard Webhooks sender keeps across its retries: a second delivery of it is a replay. */
export const standardWebhookId = (headers: Headers) => headers.get("webhook-id") ?? headers.get("svix-id");

/** Accepts `webhook-*` or `svix-*` headers; any one matching `v1,` signature in the list passes. */
export async function verifyStandardWebhook(secret: string, headers: Headers, body: string, now = Date.now()): Promise<boolean> {
  const id = headers.get("webhook-id") ?? headers.get("svix-id");
  const timestamp = headers.get("webhook-timestamp") ?? headers.get("svix-timestamp");
  const signatures = headers.get("webhook-signature") ?? headers.get("svix-signature");
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  let expected: string;
  try {
    expected = (await signStandardWebhook(secret, id, Number(timestamp), body)).slice(3);
  } catch {
    return false;
  }
  return signatures
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .some((s) => timingSafeEqual(s.slice(3), expected));
}
