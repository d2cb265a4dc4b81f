// Which credential fields are secrets is read from each provider's schema (`writeOnly`): only those
// are masked in answers. The table makes every field's side a decision, also for a field added later.
import { describe, expect, it } from "vitest";
import { credentialsJsonSchema, maskCredentials } from "../../src/features/integrations/credentials";
import { PROVIDERS, providerFor } from "../../src/providers/registry";
import { createEnvironment } from "../factories";
import { api } from "../request";

type Schema = { properties?: Record<string, Schema & { writeOnly?: boolean }>; anyOf?: Schema[] };

/** Top-level fields by side; a union (FCM's key file as text or as an object) counts as secret when any branch is. */
const SIDES: Record<string, { secret: string[]; clear: string[] }> = {
  "sandbox-email": { secret: [], clear: [] },
  "sandbox-sms": { secret: [], clear: [] },
  "sandbox-push": { secret: [], clear: [] },
  "sandbox-chat": { secret: [], clear: [] },
  resend: { secret: ["apiKey", "webhookSecret"], clear: ["from"] },
  sendgrid: { secret: ["apiKey"], clear: ["from", "webhookVerificationKey"] },
  postmark: { secret: ["serverToken", "webhookPassword"], clear: ["from", "messageStream", "webhookUsername"] },
  mailgun: { secret: ["apiKey", "webhookSigningKey"], clear: ["domain", "from"] },
  ses: {
    secret: ["secretAccessKey", "sessionToken"],
    clear: ["accessKeyId", "region", "from", "configurationSetName", "snsTopicArn", "snsTrustedUrlPrefix"],
  },
  brevo: { secret: ["apiKey", "webhookToken"], clear: ["from"] },
  twilio: { secret: ["authToken"], clear: ["accountSid", "from", "messagingServiceSid", "publicUrl"] },
  vonage: { secret: ["apiSecret", "signatureSecret"], clear: ["apiKey", "from", "signatureMethod", "publicUrl"] },
  plivo: { secret: ["authToken"], clear: ["authId", "from", "powerpackUuid", "publicUrl", "allowV2Signatures"] },
  telnyx: { secret: ["apiKey"], clear: ["from", "messagingProfileId", "publicKey", "publicUrl"] },
  sns: { secret: ["secretAccessKey", "sessionToken"], clear: ["accessKeyId", "region", "originationNumber", "senderId", "smsType"] },
  fcm: { secret: ["serviceAccount"], clear: ["tokenUri"] },
  apns: { secret: ["privateKey"], clear: ["keyId", "teamId", "topic", "pushType"] },
  expo: { secret: ["accessToken"], clear: [] },
  onesignal: { secret: ["apiKey"], clear: ["appId", "tokenType"] },
  webpush: { secret: ["vapidPrivateKey"], clear: ["vapidPublicKey", "subject", "ttlSeconds", "urgency"] },
  slack: { secret: [], clear: [] },
  "slack-api": { secret: ["botToken"], clear: [] },
  discord: { secret: [], clear: ["username", "avatarUrl"] },
  teams: { secret: [], clear: [] },
  mattermost: { secret: [], clear: ["username", "iconUrl"] },
  telegram: { secret: ["botToken"], clear: ["parseMode"] },
  webhook: { secret: ["secret"], clear: [] },
};

function sides(schema: Schema) {
  const fields = new Map<string, boolean>();
  for (const branch of [schema, ...(schema.anyOf ?? [])]) {
    for (const [name, field] of Object.entries(branch.properties ?? {})) {
      const secret = field.writeOnly === true || (field.anyOf ?? []).some((b) => (b as { writeOnly?: boolean }).writeOnly);
      fields.set(name, (fields.get(name) ?? false) || secret);
    }
  }
  const names = [...fields.keys()];
  return { secret: names.filter((n) => fields.get(n)).sort(), clear: names.filter((n) => !fields.get(n)).sort() };
}

describe("credential secrets", () => {
  it.each(Object.keys(PROVIDERS))("%s marks exactly its secrets writeOnly", (id) => {
    const expected = SIDES[id];
    expect(expected, `classify ${id}'s credential fields in SIDES`).toBeDefined();
    expect(sides(credentialsJsonSchema(providerFor(id)!) as Schema)).toEqual({
      secret: [...expected!.secret].sort(),
      clear: [...expected!.clear].sort(),
    });
  });

  it("masks FCM's key file whether given as text or as an object, showing its project and account", () => {
    const schema = credentialsJsonSchema(providerFor("fcm")!);
    const key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n";
    const file = {
      project_id: "acme-app",
      client_email: "push@acme-app.iam.gserviceaccount.com",
      private_key: key,
      private_key_id: "0123456789abcdef",
    };
    expect(maskCredentials({ serviceAccount: file }, schema)).toEqual({
      serviceAccount: {
        project_id: "acme-app",
        client_email: "push@acme-app.iam.gserviceaccount.com",
        private_key: "----••••",
        private_key_id: "0123••••",
      },
    });
    expect(maskCredentials({ serviceAccount: JSON.stringify(file) }, schema)).toEqual({ serviceAccount: '{"pr••••' });
  });

  it("masks every string of a field the schema does not describe", () => {
    const schema = credentialsJsonSchema(providerFor("sandbox-email")!);
    expect(maskCredentials({ anything: "some-long-value-123", nested: { n: 3, s: "another-long-value" } }, schema)).toEqual({
      anything: "some••••",
      nested: { n: 3, s: "anot••••" },
    });
  });
});

describe("GET /v1/integrations/{id}", () => {
  it("shows Twilio's Account SID, sender and public URL in clear and masks only the auth token", async () => {
    const { key } = await createEnvironment();
    const credentials = {
      accountSid: `AC${"0123456789abcdef".repeat(2)}`,
      authToken: "0f9e8d7c6b5a49382716a5b4c3d2e1f0",
      from: "+41791234567",
      publicUrl: "https://notify.example.com",
    };
    const created = await api<{ id: string; credentials: unknown }>(key, "POST", "/v1/integrations", { provider: "twilio", credentials });
    expect(created.status).toBe(201);
    const shown = { ...credentials, authToken: "0f9e••••" };
    expect(created.body.credentials).toEqual(shown);
    expect((await api<{ credentials: unknown }>(key, "GET", `/v1/integrations/${created.body.id}`)).body.credentials).toEqual(shown);
    const listed = await api<{ data: { id: string; credentials: unknown }[] }>(key, "GET", "/v1/integrations?channel=sms");
    expect(listed.body.data.find((i) => i.id === created.body.id)?.credentials).toEqual(shown);
    // The form sent back as it was read keeps the token, and the clear fields are taken as they are.
    const saved = await api<{ credentials: unknown }>(key, "PUT", `/v1/integrations/${created.body.id}`, {
      credentials: { ...shown, from: "+41797654321" },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.credentials).toEqual({ ...shown, from: "+41797654321" });
  });

  it("asks again only for the secrets when a destination moves with the credentials left out", async () => {
    const { key } = await createEnvironment();
    const credentials = { accountSid: `AC${"a".repeat(32)}`, authToken: "0f9e8d7c6b5a49382716a5b4c3d2e1f0", from: "+41791234567" };
    const created = await api<{ id: string }>(key, "POST", "/v1/integrations", { provider: "twilio", credentials });
    const moved = await api<{ code: string; errors: { path: string }[] }>(key, "PUT", `/v1/integrations/${created.body.id}`, {
      baseUrl: "https://twilio-proxy.example.com",
    });
    expect(moved.status).toBe(422);
    expect(moved.body.code).toBe("secret_requires_resupply");
    expect(moved.body.errors.map((e) => e.path)).toEqual(["credentials.authToken"]);
  });
});
