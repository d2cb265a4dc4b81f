import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { credentialFields, credentialsToSend, initialValues, labelOf } from "../../dashboard/src/pages/integrations/credential-fields";
import { decryptJson, integrationAad } from "../../src/lib/secrets";
import { createEnvironment } from "../factories";
import { api } from "../request";

// The dashboard's credential form against the real API: every provider's JSON Schema from
// GET /v1/providers, and the edit rule that an untouched (masked) field keeps its stored value.

interface Provider {
  id: string;
  credentials: Record<string, unknown>;
}
interface Integration {
  id: string;
  credentials: Record<string, unknown>;
}

const providers = async (key: string) => (await api<{ data: Provider[] }>(key, "GET", "/v1/providers")).body.data;

async function storedCredentials(id: string) {
  const row = await env.DB.prepare("SELECT environment_id, credentials FROM integrations WHERE id = ?")
    .bind(id)
    .first<{ environment_id: string; credentials: string }>();
  return decryptJson(env.ENCRYPTION_KEY, row!.credentials, integrationAad(row!.environment_id, id));
}

describe("the dashboard's credential form", () => {
  it("renders every registered provider's schema with its own inputs, none as raw JSON", async () => {
    const { key } = await createEnvironment();
    const all = await providers(key);
    expect(all.length).toBeGreaterThan(20);
    for (const provider of all) {
      const fields = credentialFields(provider.credentials);
      const required = (provider.credentials.required as string[] | undefined) ?? [];
      expect(
        fields.filter((f) => f.kind === "json"),
        provider.id,
      ).toEqual([]);
      expect(
        fields
          .filter((f) => f.required)
          .map((f) => f.name)
          .sort(),
        provider.id,
      ).toEqual([...required].sort());
      expect(fields.length, provider.id).toBe(Object.keys((provider.credentials.properties as object | undefined) ?? {}).length);
    }
  });

  it("hides what is secret and only that", async () => {
    const { key } = await createEnvironment();
    const all = await providers(key);
    const field = (provider: string, name: string) =>
      credentialFields(all.find((p) => p.id === provider)!.credentials).find((f) => f.name === name);
    for (const [provider, name] of [
      ["resend", "apiKey"],
      ["resend", "webhookSecret"],
      ["twilio", "authToken"],
      ["telegram", "botToken"],
      ["ses", "secretAccessKey"],
      ["ses", "sessionToken"],
      ["apns", "privateKey"],
      ["webpush", "vapidPrivateKey"],
      ["postmark", "webhookPassword"],
      ["mailgun", "webhookSigningKey"],
    ])
      expect(field(provider!, name!), `${provider}.${name}`).toMatchObject({ kind: "text", secret: true });
    for (const [provider, name] of [
      ["resend", "from"],
      ["ses", "region"],
      ["ses", "accessKeyId"],
      ["mailgun", "domain"],
      ["fcm", "tokenUri"],
      ["apns", "keyId"],
      ["webpush", "vapidPublicKey"],
      ["twilio", "publicUrl"],
      ["twilio", "accountSid"],
      ["vonage", "apiKey"],
    ])
      expect(field(provider!, name!), `${provider}.${name}`).toMatchObject({ kind: "text", secret: false });
    expect(field("fcm", "serviceAccount")).toMatchObject({ kind: "text", secret: true, multiline: true });
    expect(field("onesignal", "tokenType")).toMatchObject({ kind: "enum", options: ["subscription_id", "external_id"] });
    expect(field("sns", "smsType")).toMatchObject({ kind: "enum", options: ["Transactional", "Promotional"], required: false });
    expect(field("webpush", "ttlSeconds")).toMatchObject({ kind: "number", integer: true, maximum: 2419200 });
    expect(field("plivo", "allowV2Signatures")).toMatchObject({ kind: "boolean" });
    expect(labelOf("webhookSigningKey")).toBe("Webhook signing key");
    expect(labelOf("apiKey")).toBe("API key");
    expect(labelOf("project_id")).toBe("Project ID");
  });

  it("creates with what was filled in, and on edit keeps every field left empty as stored", async () => {
    const { key } = await createEnvironment();
    const vonage = (await providers(key)).find((p) => p.id === "vonage")!;
    const fields = credentialFields(vonage.credentials);
    const filled = {
      ...initialValues(fields),
      apiKey: "vonage-key-123456",
      apiSecret: "vonage-secret-abcdef",
      from: "Acme",
      signatureSecret: "signature-secret-0987654321",
    };
    const credentials = credentialsToSend(fields, filled);
    // The schema's default is preselected; nothing left empty is sent.
    expect(credentials).toEqual({
      apiKey: "vonage-key-123456",
      apiSecret: "vonage-secret-abcdef",
      from: "Acme",
      signatureSecret: "signature-secret-0987654321",
      signatureMethod: "sha256",
    });
    const created = await api<Integration>(key, "POST", "/v1/integrations", { provider: "vonage", credentials });
    expect(created.status).toBe(201);
    const masked = created.body.credentials;

    // Opened for editing: the settings shown in clear are in their inputs, no secret is, and saving untouched sends nothing.
    const opened = initialValues(fields, masked);
    expect(opened).toMatchObject({
      apiKey: "vonage-key-123456",
      from: "Acme",
      signatureMethod: "sha256",
      apiSecret: "",
      signatureSecret: "",
    });
    expect(credentialsToSend(fields, opened, masked)).toBeUndefined();

    // Retyping one secret and removing an optional one: the rest is sent back masked and kept.
    const edited = credentialsToSend(fields, { ...opened, apiSecret: "new-vonage-secret-xyz" }, masked, new Set(["signatureSecret"]));
    expect(edited).toBeDefined();
    expect(JSON.stringify(edited)).not.toContain("vonage-secret-abcdef");
    const saved = await api<Integration>(key, "PUT", `/v1/integrations/${created.body.id}`, { credentials: edited });
    expect(saved.status).toBe(200);
    expect(await storedCredentials(created.body.id)).toEqual({
      apiKey: "vonage-key-123456",
      apiSecret: "new-vonage-secret-xyz",
      from: "Acme",
      signatureMethod: "sha256",
    });
  });
});
