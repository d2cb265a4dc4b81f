import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Integration } from "../../src/features/integrations/schemas";
import { decryptJson, integrationAad } from "../../src/lib/secrets";
import { PROVIDERS } from "../../src/providers/registry";
import { createEnvironment } from "../factories";
import { api, errorPaths, expectProblem } from "../request";
import { strictApi } from "../strict-api";

const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
const AWS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };

/** One row per destination field an adapter declares: a valid integration and a new value for the field. */
const DESTINATIONS: { provider: string; credentials: Record<string, unknown>; field: string; moved: string }[] = [
  {
    provider: "fcm",
    credentials: {
      serviceAccount: { project_id: "acme-app", client_email: "push@acme-app.iam.gserviceaccount.com", private_key: PEM },
      tokenUri: "https://oauth2.googleapis.com/token",
    },
    field: "tokenUri",
    moved: "https://collector.example/token",
  },
  { provider: "ses", credentials: { ...AWS, region: "eu-west-1", from: "Acme <hi@acme.dev>" }, field: "region", moved: "us-east-1" },
  {
    provider: "ses",
    credentials: { ...AWS, region: "eu-west-1", from: "Acme <hi@acme.dev>", snsTrustedUrlPrefix: "https://sns.eu-west-1.amazonaws.com/" },
    field: "snsTrustedUrlPrefix",
    moved: "https://collector.example/",
  },
  { provider: "sns", credentials: { ...AWS, region: "eu-west-1" }, field: "region", moved: "us-east-1" },
  {
    provider: "twilio",
    credentials: {
      accountSid: `AC${"a".repeat(32)}`,
      authToken: "twilio-auth-token-0001",
      from: "+15005550006",
      publicUrl: "https://clarion.acme.dev",
    },
    field: "publicUrl",
    moved: "https://collector.example",
  },
  {
    provider: "plivo",
    credentials: {
      authId: "MAZDQ1ZJIYMDZKMTZM",
      authToken: "plivo-auth-token-0001",
      from: "+15005550006",
      publicUrl: "https://clarion.acme.dev",
    },
    field: "publicUrl",
    moved: "https://collector.example",
  },
  {
    provider: "telnyx",
    credentials: { apiKey: "KEY0123456789abcdefTELNYX", from: "+15005550006", publicUrl: "https://clarion.acme.dev" },
    field: "publicUrl",
    moved: "https://collector.example",
  },
];

async function created(key: string, provider: string, credentials: Record<string, unknown>) {
  const res = await api<Integration>(key, "POST", "/v1/integrations", { provider, credentials });
  if (res.status !== 201) throw new Error(`integration not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const storedCredentials = async (environmentId: string, id: string) => {
  const row = await env.DB.prepare("SELECT credentials FROM integrations WHERE id = ?").bind(id).first<{ credentials: string }>();
  return decryptJson<Record<string, unknown>>(env.ENCRYPTION_KEY, row!.credentials, integrationAad(environmentId, id));
};

describe("PUT /v1/integrations/{id}: stored secrets never follow a moved destination", () => {
  it("covers every destination field an adapter declares", () => {
    const declared = Object.values(PROVIDERS).flatMap((adapter) =>
      ((adapter as { destinations?: readonly string[] }).destinations ?? []).map((field) => `${adapter.id}.${field}`),
    );
    // A nested field (the key file's token_uri) cannot change without re-supplying the file it sits in.
    const covered = DESTINATIONS.map((row) => `${row.provider}.${row.field}`);
    expect(declared.filter((d) => !covered.includes(d))).toEqual(["fcm.serviceAccount.token_uri"]);
  });

  it.each(DESTINATIONS)(
    "refuses $provider's $field moved with the masked secrets sent back",
    async ({ provider, credentials, field, moved }) => {
      const { id: environmentId, key } = await createEnvironment();
      const integration = await created(key, provider, credentials);
      const res = await api(key, "PUT", `/v1/integrations/${integration.id}`, {
        credentials: { ...integration.credentials, [field]: moved },
      });
      const problem = expectProblem(res, 422, "secret_requires_resupply");
      expect(problem.detail).toContain(`credentials.${field}`);
      expect(errorPaths(problem).length).toBeGreaterThan(0);
      expect(errorPaths(problem).every((path) => path.startsWith("credentials."))).toBe(true);
      expect(await storedCredentials(environmentId, integration.id)).toEqual(credentials);
    },
  );

  it.each(DESTINATIONS)(
    "accepts $provider's $field moved with the credentials in full",
    async ({ provider, credentials, field, moved }) => {
      const { id: environmentId, key } = await createEnvironment();
      const integration = await created(key, provider, credentials);
      const res = await api(key, "PUT", `/v1/integrations/${integration.id}`, { credentials: { ...credentials, [field]: moved } });
      expect(res.status).toBe(200);
      expect(await storedCredentials(environmentId, integration.id)).toEqual({ ...credentials, [field]: moved });
    },
  );

  it.each(DESTINATIONS)("refuses $provider's baseUrl moved with the credentials left out", async ({ provider, credentials }) => {
    const { key } = await createEnvironment();
    const integration = await created(key, provider, credentials);
    const res = await api(key, "PUT", `/v1/integrations/${integration.id}`, { baseUrl: "https://collector.example" });
    expect(expectProblem(res, 422, "secret_requires_resupply").detail).toContain("baseUrl");
  });

  it("names the FCM service account's private key to re-supply when only tokenUri changes", async () => {
    const [row] = DESTINATIONS;
    const { key } = await createEnvironment();
    const integration = await created(key, row!.provider, row!.credentials);
    const res = await api(key, "PUT", `/v1/integrations/${integration.id}`, {
      credentials: { serviceAccount: integration.credentials.serviceAccount, tokenUri: "https://collector.example/token" },
    });
    // The project and the account are shown in clear: only the key was never seen.
    expect(errorPaths(expectProblem(res, 422, "secret_requires_resupply"))).toEqual(["credentials.serviceAccount.private_key"]);
  });

  it("keeps masked secrets when nothing that decides where they go changes", async () => {
    const [row] = DESTINATIONS;
    const { key } = await createEnvironment();
    const integration = await created(key, row!.provider, row!.credentials);
    const res = await api(key, "PUT", `/v1/integrations/${integration.id}`, { name: "push", credentials: integration.credentials });
    expect(res.status).toBe(200);
  });
});

/** Loopback, private, link-local and metadata addresses in the forms a URL may spell them. */
const FORBIDDEN = [
  "https://2130706433/",
  "https://0x7f000001/",
  "https://127.1/",
  "https://0177.0.0.1/",
  "https://127.0.0.1/",
  "https://[::1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:a9fe:a9fe]/",
  "https://localhost/",
  "https://api.localhost/",
  "https://LOCALHOST./",
  "https://169.254.169.254/latest/meta-data/",
  "https://metadata.google.internal/computeMetadata/v1/",
  "https://10.0.0.7/",
  "https://172.16.0.1/",
  "https://172.31.255.255/",
  "https://192.168.1.1/",
  "https://100.64.0.1/",
  "https://[fc00::1]/",
  "https://[fd12:3456:789a::1]/",
  "https://[fe80::1]/",
  "https://0.0.0.0/",
  "https://intranet/",
  "http://api.resend.com/",
];

describe("destination policy at save time (opt-in off)", () => {
  it.each(FORBIDDEN)("refuses baseUrl %s on create", async (baseUrl) => {
    const { key } = await createEnvironment();
    const res = await strictApi(key, "POST", "/v1/integrations", {
      provider: "resend",
      credentials: { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" },
      baseUrl,
    });
    expect(errorPaths(expectProblem(res, 422, "destination_not_allowed"))).toEqual(["baseUrl"]);
  });

  it.each(FORBIDDEN)("refuses FCM tokenUri %s", async (tokenUri) => {
    const [row] = DESTINATIONS;
    const { key } = await createEnvironment();
    const res = await strictApi(key, "POST", "/v1/integrations", { provider: "fcm", credentials: { ...row!.credentials, tokenUri } });
    expect(errorPaths(expectProblem(res, 422, "destination_not_allowed"))).toEqual(["credentials.tokenUri"]);
  });

  it("refuses a private baseUrl on update, with the credentials in full", async () => {
    const { key } = await createEnvironment();
    const credentials = { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" };
    const integration = await created(key, "resend", credentials);
    const res = await strictApi(key, "PUT", `/v1/integrations/${integration.id}`, { baseUrl: "https://10.1.2.3", credentials });
    expect(errorPaths(expectProblem(res, 422, "destination_not_allowed"))).toEqual(["baseUrl"]);
  });

  it("accepts a public https baseUrl", async () => {
    const { key } = await createEnvironment();
    const res = await strictApi(key, "POST", "/v1/integrations", {
      provider: "resend",
      credentials: { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" },
      baseUrl: "https://api.eu.resend.example",
    });
    expect(res.status).toBe(201);
  });

  it("refuses cloud metadata even under the opt-in", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/integrations", {
      provider: "resend",
      credentials: { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" },
      baseUrl: "http://169.254.169.254",
    });
    expectProblem(res, 422, "destination_not_allowed");
  });
});
