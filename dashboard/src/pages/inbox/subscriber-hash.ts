/**
 * hex HMAC-SHA256(secret, subscriberId): what a team's backend computes for its users' Inboxes,
 * computed here with the environment's secret so the preview opens whether or not a hash is required.
 */
export async function subscriberHash(secret: string, subscriberId: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(subscriberId));
  return [...new Uint8Array(signature)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
