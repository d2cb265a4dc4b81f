// The Inbox's subscriber hash, with no imports: the session route checks it, and the dashboard's
// Inbox page computes it, from the same code.

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

/** `subscriberHash` as a customer's backend computes it: hex HMAC-SHA256(hmacSecret, subscriberId). */
export async function subscriberHash(hmacSecret: string, subscriberId: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(hmacSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(subscriberId))));
}
