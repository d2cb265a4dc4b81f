import { generateKeyPairSync } from "node:crypto";
import { Agent } from "node:https";
import { connect, type Socket } from "node:net";
import { deleteApp, initializeApp, type App } from "firebase-admin/app";
import { getMessaging } from "firebase-admin/messaging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fcm } from "../../../src/providers/push/fcm";
import { localOutbound, sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";
import { verifyJwt } from "./jwt";
import { pushContent } from "./sample-content";

let server: CaptureServer;
let sdkApp: App;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(async () => {
  if (sdkApp) await deleteApp(sdkApp);
  await server.close();
});

const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const PROJECT = "clarion-demo";
/** Service-account access tokens run past 1 KB. */
const ACCESS_TOKEN = `ya29.c.c0ASRK0Ga${"x".repeat(1200)}`;
const TOKEN = "fcm-registration-token:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx";

let accounts = 0;
/** A fresh service account per test, so each send starts without a cached access token. */
function serviceAccount() {
  accounts++;
  return {
    type: "service_account",
    project_id: PROJECT,
    private_key_id: "8f1d7c0c0a3f4e2b9d6c5a4b3e2f1a0b9c8d7e6f",
    private_key: privateKey,
    client_email: `clarion-${accounts}@${PROJECT}.iam.gserviceaccount.com`,
    token_uri: "https://oauth2.googleapis.com/token",
  };
}
const credentialsFor = (account: ReturnType<typeof serviceAccount>) => ({
  serviceAccount: JSON.stringify(account),
  tokenUri: `${server.url}/token`,
});
const tokenAnswer = { status: 200, body: { access_token: ACCESS_TOKEN, expires_in: 3599, token_type: "Bearer" } };
const sent = { status: 200, body: { name: `projects/${PROJECT}/messages/0:1700000000000000%31bd1c9631bd1c96` } };
const content = pushContent;

/**
 * firebase-admin always calls https://fcm.googleapis.com; this agent hands its requests to the
 * capture server over plain TCP instead (TLS lives in the agent, so the request itself is untouched).
 */
class ToCaptureServer extends Agent {
  override createConnection(_options: unknown, callback?: (error: Error | null, socket: Socket) => void): Socket {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1");
    if (callback) socket.once("connect", () => callback(null, socket));
    return socket;
  }
}

const fcmError = (code: number, status: string, message: string, errorCode?: string) => ({
  error: {
    code,
    message,
    status,
    details: errorCode ? [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }] : [],
  },
});

describe("fcm adapter matches firebase-admin", () => {
  it("sends the same messages:send request as `firebase-admin` messaging.send", async () => {
    server.reset();
    server.answer(sent);
    // The SDK's own token exchange cannot be redirected (gtoken ignores the agent); the exchange is checked below against the documented format.
    sdkApp = initializeApp(
      {
        credential: { getAccessToken: async () => ({ access_token: ACCESS_TOKEN, expires_in: 3599 }) },
        httpAgent: new ToCaptureServer(),
        projectId: PROJECT,
      },
      "fcm-conformance",
    );
    const messaging = getMessaging(sdkApp);
    messaging.enableLegacyHttpTransport();
    const name = await messaging.send({
      token: TOKEN,
      notification: { title: content.title, body: content.body, imageUrl: content.imageUrl },
      data: { orderId: "42", items: "3" },
      android: { notification: { sound: "default", notificationCount: 2 } },
      apns: { payload: { aps: { badge: 2, sound: "default" } } },
    });
    expect(name).toBe(sent.body.name);
    const expected = server.requests.at(-1)!;
    server.reset();

    server.answer(tokenAnswer, sent);
    const { outcome } = await sendWith(fcm, { credentials: credentialsFor(serviceAccount()), baseUrl: server.url }, { to: TOKEN, content });
    expect(outcome).toEqual({ ok: true, providerMessageId: sent.body.name });
    expect(server.requests).toHaveLength(2);
    const actual = server.requests[1]!;
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.path).toBe(`/v1/projects/${PROJECT}/messages:send`);
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it("exchanges a signed RS256 service-account assertion for the access token, as documented", async () => {
    server.reset();
    server.answer(tokenAnswer, sent);
    const account = serviceAccount();
    const before = Math.floor(Date.now() / 1000);
    await sendWith(fcm, { credentials: credentialsFor(account), baseUrl: server.url }, { to: TOKEN, content });
    const exchange = server.requests[0]!;
    expect(exchange.method).toBe("POST");
    expect(exchange.path).toBe("/token");
    expect(exchange.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(exchange.text);
    expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");

    const jwt = verifyJwt(form.get("assertion")!, publicKey);
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toMatchObject({ alg: "RS256", kid: account.private_key_id });
    expect(jwt.claims).toEqual({
      iss: account.client_email,
      scope: "https://www.googleapis.com/auth/firebase.messaging",
      // The audience is Google's token endpoint even though the exchange went to tokenUri.
      aud: "https://oauth2.googleapis.com/token",
      iat: expect.any(Number),
      exp: (jwt.claims.iat as number) + 3600,
    });
    expect(jwt.claims.iat).toBeGreaterThanOrEqual(before);
    expect(jwt.claims.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    // And a signature from another key does not verify with this one.
    const other = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    expect(verifyJwt(form.get("assertion")!, other.publicKey).valid).toBe(false);
  });

  it("reuses the access token until it expires", async () => {
    server.reset();
    server.answer(tokenAnswer, sent);
    const credentials = credentialsFor(serviceAccount());
    await sendWith(fcm, { credentials, baseUrl: server.url }, { to: TOKEN, content });
    await sendWith(fcm, { credentials, baseUrl: server.url }, { to: TOKEN, content });
    expect(server.requests.map((r) => r.path)).toEqual([
      "/token",
      `/v1/projects/${PROJECT}/messages:send`,
      `/v1/projects/${PROJECT}/messages:send`,
    ]);
  });

  it("fetches a new access token once when FCM answers 401 UNAUTHENTICATED", async () => {
    server.reset();
    const unauthenticated = fcmError(
      401,
      "UNAUTHENTICATED",
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    );
    server.answer(tokenAnswer, { status: 401, body: unauthenticated }, tokenAnswer, sent);
    const { outcome } = await sendWith(fcm, { credentials: credentialsFor(serviceAccount()), baseUrl: server.url }, { to: TOKEN, content });
    expect(outcome).toEqual({ ok: true, providerMessageId: sent.body.name });
    expect(server.requests.map((r) => r.path.split("/").at(-1))).toEqual(["token", "messages:send", "token", "messages:send"]);
  });

  it.each([
    [
      "400 not a valid FCM registration token",
      400,
      {},
      fcmError(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", "INVALID_ARGUMENT"),
      "invalid_recipient",
      "INVALID_ARGUMENT",
      undefined,
    ],
    [
      "403 SENDER_ID_MISMATCH",
      403,
      {},
      fcmError(403, "PERMISSION_DENIED", "SenderId mismatch", "SENDER_ID_MISMATCH"),
      "invalid_recipient",
      "SENDER_ID_MISMATCH",
      undefined,
    ],
    [
      "400 INVALID_ARGUMENT (payload)",
      400,
      {},
      fcmError(400, "INVALID_ARGUMENT", "Invalid value at 'message.data[0].value' (TYPE_STRING), 3", "INVALID_ARGUMENT"),
      "permanent",
      "INVALID_ARGUMENT",
      undefined,
    ],
    [
      "401 THIRD_PARTY_AUTH_ERROR",
      401,
      {},
      fcmError(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", "THIRD_PARTY_AUTH_ERROR"),
      "permanent",
      "THIRD_PARTY_AUTH_ERROR",
      undefined,
    ],
    [
      "403 PERMISSION_DENIED",
      403,
      {},
      fcmError(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource"),
      "permanent",
      "PERMISSION_DENIED",
      undefined,
    ],
  ])("classifies %s", async (_name, status, headers, body, kind, code, retryAfterSeconds) => {
    server.reset();
    server.answer(tokenAnswer, { status, headers, body });
    const { outcome } = await sendWith(fcm, { credentials: credentialsFor(serviceAccount()), baseUrl: server.url }, { to: TOKEN, content });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  });

  it.each([
    [400, { error: "invalid_grant", error_description: "Invalid JWT Signature." }, "permanent", "oauth_invalid_grant"],
    [503, { error: "temporarily_unavailable" }, "retryable", "oauth_temporarily_unavailable"],
  ])("classifies a token endpoint %i", async (status, body, kind, code) => {
    server.reset();
    server.answer({ status, body });
    const { outcome } = await sendWith(fcm, { credentials: credentialsFor(serviceAccount()), baseUrl: server.url }, { to: TOKEN, content });
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(server.requests).toHaveLength(1);
  });

  it("checks the credentials by exchanging them for an access token", async () => {
    server.reset();
    const integration = (account: ReturnType<typeof serviceAccount>) => ({
      id: "int_1",
      provider: "fcm",
      channel: "push" as const,
      credentials: credentialsFor(account),
      settings: {},
      baseUrl: server.url,
    });
    server.answer(tokenAnswer);
    expect(await fcm.check!(integration(serviceAccount()), localOutbound(AbortSignal.timeout(1000)))).toMatchObject({ ok: true });
    server.answer({ status: 400, body: { error: "invalid_grant", error_description: "Invalid JWT Signature." } });
    expect(await fcm.check!(integration(serviceAccount()), localOutbound(AbortSignal.timeout(1000)))).toEqual({
      ok: false,
      detail: expect.stringContaining("oauth_invalid_grant"),
    });
    expect(server.requests.map((r) => r.path)).toEqual(["/token", "/token"]);
  });

  it("rejects credentials without a service-account key", () => {
    expect(fcm.credentials.safeParse({ serviceAccount: "{not json" }).success).toBe(false);
    expect(fcm.credentials.safeParse({ serviceAccount: JSON.stringify({ project_id: PROJECT, client_email: "x@y" }) }).success).toBe(false);
    expect(fcm.credentials.safeParse({ serviceAccount: serviceAccount() }).success).toBe(true);
  });
});
