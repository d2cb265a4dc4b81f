import { describe, expect, it } from "vitest";
import { base64ToBytes, bytesToBase64Url } from "../../src/lib/base64";
import { hkdfKey } from "../../src/lib/crypto";
import { linkSealer, newLinkSecret, openToken } from "../../src/lib/link-tokens";

// A link's token is sealed once per recipient of every delivery, so its code is tuned for speed;
// its spelling must stay what links already sent say: the IV is the HMAC of AAD, 0, plaintext.
describe("link tokens", () => {
  it("seal to the documented spelling and open again", async () => {
    const secret = newLinkSecret();
    const environmentId = "env_links";
    const seal = await linkSealer(secret, environmentId);
    for (const [row, workflow, tenant] of [
      ["sub_row_1", "welcome", null],
      ["sub_row_2", null, "acme"],
    ] as const) {
      const token = await seal(row, workflow, tenant);
      const raw = base64ToBytes(secret);
      const macKey = await hkdfKey(raw, "clarion-link-iv", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);
      const sealKey = await hkdfKey(raw, "clarion-link-seal", { name: "AES-GCM", length: 256 }, ["encrypt"]);
      const aad = new TextEncoder().encode(`clarion-link:${environmentId}`);
      const plain = new TextEncoder().encode(JSON.stringify(tenant ? [row, workflow, tenant] : [row, workflow]));
      const iv = new Uint8Array(await crypto.subtle.sign("HMAC", macKey, new Uint8Array([...aad, 0, ...plain]))).subarray(0, 12);
      const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, sealKey, plain));
      expect(token).toBe(`${environmentId}.${bytesToBase64Url(new Uint8Array([...iv, ...sealed]))}`);
      expect(await openToken(secret, token)).toEqual({ environmentId, subscriberRowId: row, workflowKey: workflow, tenantId: tenant });
    }
  });
});
