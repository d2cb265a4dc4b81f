import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Integration } from "../../src/features/integrations/schemas";
import { CiphertextError, decryptJson, encryptJson, integrationAad } from "../../src/lib/secrets";
import { createEnvironment, createIntegration } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

/** A ciphertext as 0.5 wrote it: `v1.`, no additional authenticated data. */
async function v1Ciphertext(value: unknown) {
  const raw = Uint8Array.from(atob(env.ENCRYPTION_KEY!), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(JSON.stringify(value)));
  return `v1.${b64url(iv)}.${b64url(new Uint8Array(data))}`;
}

const credentials = { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" };
const storedCiphertext = async (id: string) =>
  (await env.DB.prepare("SELECT credentials FROM integrations WHERE id = ?").bind(id).first<{ credentials: string }>())!.credentials;

describe("row-bound encryption", () => {
  it("does not decrypt a ciphertext under another row's binding", async () => {
    const text = await encryptJson(env.ENCRYPTION_KEY, credentials, integrationAad("env_a", "int_a"));
    await expect(decryptJson(env.ENCRYPTION_KEY, text, integrationAad("env_a", "int_b"))).rejects.toBeInstanceOf(CiphertextError);
    await expect(decryptJson(env.ENCRYPTION_KEY, text, integrationAad("env_b", "int_a"))).rejects.toBeInstanceOf(CiphertextError);
    expect(await decryptJson(env.ENCRYPTION_KEY, text, integrationAad("env_a", "int_a"))).toEqual(credentials);
  });

  it("reads credentials stored before row binding, and binds them on the next save", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const id = await createIntegration(environmentId, { provider: "resend", channel: "email", credentials });
    await env.DB.prepare("UPDATE integrations SET credentials = ? WHERE id = ?")
      .bind(await v1Ciphertext(credentials), id)
      .run();
    const read = await api<Integration>(key, "GET", `/v1/integrations/${id}`);
    expect(read.body.credentials).toEqual({ apiKey: "re_l••••", from: "Acme <hi@acme.dev>" });

    expect((await api(key, "PUT", `/v1/integrations/${id}`, { name: "renamed" })).status).toBe(200);
    const after = await storedCiphertext(id);
    expect(after).toMatch(/^v2\./);
    expect(await decryptJson(env.ENCRYPTION_KEY, after, integrationAad(environmentId, id))).toEqual(credentials);
  });

  it("asks for the credentials in full when the stored ones do not decrypt for their row", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const id = await createIntegration(environmentId, { provider: "resend", channel: "email", credentials });
    const other = await encryptJson(
      env.ENCRYPTION_KEY,
      { apiKey: "re_live_someone_else_01", from: "Evil <x@evil.dev>" },
      integrationAad(environmentId, "int_other"),
    );
    await env.DB.prepare("UPDATE integrations SET credentials = ? WHERE id = ?").bind(other, id).run();
    const masked = { apiKey: "re_l••••", from: "Acme••••" };
    const res = await api(key, "PUT", `/v1/integrations/${id}`, { credentials: masked });
    expect(errorPaths(expectProblem(res, 422, "validation_failed"))).toEqual(["credentials"]);
    expect((await api(key, "PUT", `/v1/integrations/${id}`, { credentials })).status).toBe(200);
    expect(await decryptJson(env.ENCRYPTION_KEY, await storedCiphertext(id), integrationAad(environmentId, id))).toEqual(credentials);
  });
});
