import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../src/db/client";
import { findSubscriber } from "../../../src/features/subscribers/repository";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../../factories";
import { createWorkflow, messageDetail, settledMessages, trigger } from "../helpers";

type Scenario = ReturnType<typeof fakeProviderScenario>;
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
type Captured = { method: string; path: string; headers: Record<string, string>; body: string };
type PushAddress = { provider: string; token: string };

const TITLE = "Order 42 shipped";
const BODY = "On its way";

const base64Url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const pem = (der: ArrayBuffer) =>
  `-----BEGIN PRIVATE KEY-----\n${btoa(String.fromCharCode(...new Uint8Array(der))).replace(/(.{64})/g, "$1\n")}\n-----END PRIVATE KEY-----\n`;
const jwtParts = (token: string) =>
  token
    .split(".")
    .slice(0, 2)
    .map((p) => JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>);

const rsa = (await crypto.subtle.generateKey(
  { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  true,
  ["sign", "verify"],
)) as CryptoKeyPair;
const GOOGLE_KEY = pem((await crypto.subtle.exportKey("pkcs8", rsa.privateKey)) as ArrayBuffer);
const ec = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
const APPLE_KEY = pem((await crypto.subtle.exportKey("pkcs8", ec.privateKey)) as ArrayBuffer);
const vapid = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
const VAPID = {
  vapidPublicKey: base64Url((await crypto.subtle.exportKey("raw", vapid.publicKey)) as ArrayBuffer),
  vapidPrivateKey: String(((await crypto.subtle.exportKey("jwk", vapid.privateKey)) as JsonWebKey).d),
  subject: "mailto:ops@acme.dev",
};
const browserKeys = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
const P256DH = base64Url((await crypto.subtle.exportKey("raw", browserKeys.publicKey)) as ArrayBuffer);
const AUTH = base64Url(crypto.getRandomValues(new Uint8Array(16)));

const FCM_NAME = "projects/clarion-e2e/messages/0:1700000000000000%31bd1c96";
const fcmToken: Answer = { status: 200, body: { access_token: "ya29.e2e", expires_in: 3599, token_type: "Bearer" } };

interface PushCase {
  provider: string;
  credentials: (s: Scenario) => Record<string, unknown>;
  /** Web Push sends to the subscription's own endpoint; every other provider to its baseUrl. */
  baseUrl: (s: Scenario) => string | null;
  token: (s: Scenario) => string;
  /** Answers for a successful send, in order (FCM exchanges its OAuth token first). */
  success: Answer[];
  providerMessageId: string;
  /** The paths called, in order; the last one is the send. */
  paths: string[];
  /** Answers when the provider says the token is gone. */
  gone: Answer[];
  checkSend: (request: Captured, token: string) => void;
}

const CASES: PushCase[] = [
  {
    provider: "fcm",
    credentials: (s) => ({
      serviceAccount: JSON.stringify({
        type: "service_account",
        project_id: "clarion-e2e",
        private_key: GOOGLE_KEY,
        client_email: "push@clarion-e2e.iam.gserviceaccount.com",
      }),
      tokenUri: `${s.baseUrl}/token`,
    }),
    baseUrl: (s) => s.baseUrl,
    token: () => `fcm-${unique("t")}:APA91bHun4MxP5egoKMwt2KZFBaFUH`,
    success: [fcmToken, { status: 200, body: { name: FCM_NAME } }],
    providerMessageId: FCM_NAME,
    paths: ["/token", "/v1/projects/clarion-e2e/messages:send"],
    gone: [
      fcmToken,
      {
        status: 404,
        body: {
          error: {
            code: 404,
            message: "Requested entity was not found.",
            status: "NOT_FOUND",
            details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "UNREGISTERED" }],
          },
        },
      },
    ],
    checkSend: (request, token) => {
      expect(request.headers.authorization).toBe("Bearer ya29.e2e");
      expect(JSON.parse(request.body)).toEqual({ message: { token, notification: { title: TITLE, body: BODY } } });
    },
  },
  {
    provider: "apns",
    credentials: () => ({ keyId: "ABC123DEFG", teamId: "DEF123GHIJ", privateKey: APPLE_KEY, topic: "com.acme.app" }),
    baseUrl: (s) => s.baseUrl,
    token: () => crypto.getRandomValues(new Uint8Array(32)).reduce((hex, b) => hex + b.toString(16).padStart(2, "0"), ""),
    success: [{ status: 200, headers: { "apns-id": "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E" }, body: "" }],
    providerMessageId: "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E",
    paths: ["/3/device/<token>"],
    gone: [{ status: 410, body: { reason: "Unregistered", timestamp: 1735689600000 } }],
    checkSend: (request) => {
      expect(request.headers).toMatchObject({ "apns-topic": "com.acme.app", "apns-push-type": "alert", "apns-priority": "10" });
      const [scheme, jwt] = request.headers.authorization!.split(" ");
      expect(scheme).toBe("bearer");
      expect(jwtParts(jwt!)).toEqual([
        { alg: "ES256", kid: "ABC123DEFG" },
        { iss: "DEF123GHIJ", iat: expect.any(Number) },
      ]);
      expect(JSON.parse(request.body)).toEqual({ aps: { alert: { title: TITLE, body: BODY } } });
    },
  },
  {
    provider: "expo",
    credentials: () => ({}),
    baseUrl: (s) => s.baseUrl,
    token: () => `ExponentPushToken[${unique("e")}]`,
    success: [{ status: 200, body: { data: [{ status: "ok", id: "0c0e6b5a-94a1-4d7b-8c5e-1f2a3b4c5d6e" }] } }],
    providerMessageId: "0c0e6b5a-94a1-4d7b-8c5e-1f2a3b4c5d6e",
    paths: ["/--/api/v2/push/send"],
    gone: [
      {
        status: 200,
        body: {
          data: [
            { status: "error", message: "The recipient device is not registered with FCM.", details: { error: "DeviceNotRegistered" } },
          ],
        },
      },
    ],
    checkSend: (request, token) => expect(JSON.parse(request.body)).toEqual([{ to: token, title: TITLE, body: BODY }]),
  },
  {
    provider: "onesignal",
    credentials: () => ({ appId: "5eb5a37e-b458-11e3-ac11-000c2940e62c", apiKey: "os_v2_app_e2e" }),
    baseUrl: (s) => s.baseUrl,
    token: () => crypto.randomUUID(),
    success: [{ status: 200, body: { id: "b98881cc-1e94-4366-bbd9-db8f3429292b", external_id: null } }],
    providerMessageId: "b98881cc-1e94-4366-bbd9-db8f3429292b",
    paths: ["/notifications"],
    gone: [{ status: 200, body: { id: "", errors: ["All included players are not subscribed"] } }],
    checkSend: (request, token) => {
      expect(request.headers.authorization).toBe("Key os_v2_app_e2e");
      expect(JSON.parse(request.body)).toMatchObject({
        app_id: "5eb5a37e-b458-11e3-ac11-000c2940e62c",
        target_channel: "push",
        include_subscription_ids: [token],
        headings: { en: TITLE },
        contents: { en: BODY },
      });
    },
  },
  {
    provider: "webpush",
    credentials: () => VAPID,
    baseUrl: () => null,
    token: (s) => JSON.stringify({ endpoint: `${s.baseUrl}/wpush/v2/${unique("w")}`, keys: { p256dh: P256DH, auth: AUTH } }),
    success: [{ status: 201, headers: { location: "https://push.example.com/m/msg-1" }, body: "" }],
    providerMessageId: "https://push.example.com/m/msg-1",
    paths: ["<endpoint>"],
    gone: [{ status: 410, body: "push subscription has unsubscribed or expired." }],
    checkSend: (request, token) => {
      // The payload is encrypted (decrypted in the conformance suite); here: the headers a push service checks.
      expect(request.headers).toMatchObject({
        "content-encoding": "aes128gcm",
        "content-type": "application/octet-stream",
        ttl: "2419200",
        urgency: "normal",
      });
      const [, jwt, key] = /^vapid t=([^,]+), k=(.+)$/.exec(request.headers.authorization!)!;
      expect(key).toBe(VAPID.vapidPublicKey);
      expect(jwtParts(jwt!)[1]).toMatchObject({
        aud: new URL((JSON.parse(token) as { endpoint: string }).endpoint).origin,
        sub: VAPID.subject,
      });
    },
  },
];

/** The fake server records paths below the scenario's own `/s/<name>` prefix. */
const endpointPath = (subscription: string) =>
  new URL((JSON.parse(subscription) as { endpoint: string }).endpoint).pathname.replace(/^\/s\/[^/]+/, "");
const expectedPaths = (c: PushCase, token: string) =>
  c.paths.map((p) => (p === "<endpoint>" ? endpointPath(token) : p.replace("<token>", token)));

async function pushSetup(c: PushCase, answers: Answer[]) {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  await scenario.script(answers);
  await createIntegration(id, {
    provider: c.provider,
    channel: "push",
    credentials: c.credentials(scenario),
    baseUrl: c.baseUrl(scenario),
    primary: true,
  });
  await createWorkflow(key, {
    key: "shipped",
    steps: [{ id: "push", type: "push", template: { title: "Order {{ payload.orderId }} shipped", body: BODY } }],
  });
  const subscriberId = unique("s");
  const token = c.token(scenario);
  const address: PushAddress = { provider: c.provider, token };
  const transactionId = await trigger(key, {
    workflow: "shipped",
    to: { subscriberId, channels: { push: [address] } },
    payload: { orderId: 42 },
  });
  const [message] = await settledMessages(key, transactionId, 1);
  // The addresses as stored (every answer masks push tokens and webhook URLs).
  const stored = async () => (await findSubscriber(createDb(env.DB), id, subscriberId))?.channels.push ?? [];
  return { key, scenario, address, token, message: message!, stored };
}

describe("push providers end to end (trigger → Queue → adapter → provider)", () => {
  // None of these providers posts delivery status (Expo and OneSignal only offer polling): `sent` is final.
  it.each(CASES)("$provider: sends the rendered notification and keeps the provider's id", async (c) => {
    const { key, scenario, address, token, message, stored } = await pushSetup(c, c.success);
    expect(message).toMatchObject({ status: "sent", provider: c.provider, providerMessageId: c.providerMessageId, attempts: 1 });
    const requests = await scenario.captured();
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(expectedPaths(c, token).map((p) => `POST ${p}`));
    c.checkSend(requests.at(-1)!, token);
    expect((await messageDetail(key, message.id)).events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
    expect(await stored()).toEqual([address]);
  });

  it.each(CASES)("$provider: marks the message undeliverable and removes the token the provider says is gone", async (c) => {
    const { scenario, token, message, stored } = await pushSetup(c, c.gone);
    expect(message).toMatchObject({ status: "undeliverable", provider: c.provider, attempts: 1 });
    expect((await scenario.captured()).map((r) => r.path)).toEqual(expectedPaths(c, token));
    expect(await stored()).toEqual([]);
  });
});
