import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, type ECDH } from "node:crypto";
import webPushSdk from "web-push";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webpush } from "../../../src/providers/push/webpush";
import { localOutbound, sendWith } from "../adapter";
import { startCaptureServer, type CaptureServer } from "../capture-server";
import { verifyJwt } from "./jwt";
import { pushContent } from "./sample-content";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const vapid = webPushSdk.generateVAPIDKeys();
const credentials = { vapidPublicKey: vapid.publicKey, vapidPrivateKey: vapid.privateKey, subject: "mailto:ops@acme.dev" };
const vapidPublicKey = (() => {
  const raw = Buffer.from(vapid.publicKey, "base64url");
  return createPublicKey({
    key: { kty: "EC", crv: "P-256", x: raw.subarray(1, 33).toString("base64url"), y: raw.subarray(33).toString("base64url") },
    format: "jwk",
  });
})();

/** A browser's side of a subscription: its ECDH key pair and auth secret. */
function browser(endpointPath = "/wpush/v2/gAAAAABmZ-conformance") {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const subscription = {
    endpoint: `${server.url}${endpointPath}`,
    keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
  };
  return { ecdh, auth, subscription, token: JSON.stringify(subscription) };
}

/** RFC 8291 decryption as the browser does it, with Node's crypto (independent of the adapter's Web Crypto). */
function decrypt(body: Buffer, ecdh: ECDH, auth: Buffer) {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const secret = ecdh.computeSecret(senderPublic);
  const ikm = Buffer.from(
    hkdfSync("sha256", secret, auth, Buffer.concat([Buffer.from("WebPush: info\0"), ecdh.getPublicKey(), senderPublic]), 32),
  );
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(-16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, -16)), decipher.final()]);
  let end = padded.length - 1;
  while (end > 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("missing last-record delimiter");
  return { recordSize, idLength, plaintext: padded.subarray(0, end).toString("utf8") };
}

// Web Push has no sound: the service worker decides how a notification sounds.
const { sound: _sound, ...content } = pushContent;
/** What the service worker receives: the adapter's payload for `content`. */
const plaintext = JSON.stringify({
  title: content.title,
  body: content.body,
  data: content.data,
  badge: 2,
  image: content.imageUrl,
  messageId: "msg_conformance",
});
const LOCATION = "https://updates.push.services.mozilla.com/m/gAAAAABmZ-message";
const created = { status: 201, headers: { location: LOCATION }, body: "" };

describe("webpush adapter matches web-push", () => {
  it("sends the request `web-push` generateRequestDetails describes, and the browser can decrypt it", async () => {
    const receiver = browser();
    const details = webPushSdk.generateRequestDetails(receiver.subscription, plaintext, {
      // No TTL: the library's default (4 weeks) is what the adapter must send when none is configured.
      vapidDetails: { subject: credentials.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    });
    server.reset();
    server.answer(created);
    const { outcome } = await sendWith(webpush, { credentials, baseUrl: null }, { to: receiver.token, content });
    expect(outcome).toEqual({ ok: true, providerMessageId: LOCATION });
    const actual = server.requests[0]!;

    const expectedHeaders = Object.fromEntries(Object.entries(details.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    expect(actual.method).toBe(details.method);
    expect(`${server.url}${actual.path}`).toBe(details.endpoint);
    for (const header of ["ttl", "urgency", "content-encoding", "content-type", "content-length"]) {
      expect([header, actual.headers[header]]).toEqual([header, expectedHeaders[header]]);
    }

    // Authorization: vapid t=<JWT>, k=<public key>; both JWTs verify with the VAPID key and carry the same claims.
    const parse = (value: string) => /^vapid t=([^,]+), k=(.+)$/.exec(value)!.slice(1) as [string, string];
    const [ourJwt, ourKey] = parse(String(actual.headers.authorization));
    const [sdkJwt, sdkKey] = parse(expectedHeaders.authorization!);
    expect(ourKey).toBe(sdkKey);
    const ours = verifyJwt(ourJwt, vapidPublicKey);
    const sdk = verifyJwt(sdkJwt, vapidPublicKey);
    expect(ours.valid).toBe(true);
    expect(sdk.valid).toBe(true);
    expect(ours.header).toEqual(sdk.header);
    expect(ours.claims).toMatchObject({ aud: sdk.claims.aud, sub: sdk.claims.sub });
    expect(ours.claims.aud).toBe(server.url);
    const now = Math.floor(Date.now() / 1000);
    expect(ours.claims.exp).toBeGreaterThan(now);
    expect(ours.claims.exp).toBeLessThanOrEqual(now + 24 * 3600);

    // Both bodies decrypt with the browser's private key to the same plaintext.
    const fromSdk = decrypt(details.body as Buffer, receiver.ecdh, receiver.auth);
    const fromAdapter = decrypt(actual.body, receiver.ecdh, receiver.auth);
    expect(fromSdk.plaintext).toBe(plaintext);
    expect(fromAdapter).toEqual({ recordSize: 4096, idLength: 65, plaintext });
    // A different browser's keys cannot read it.
    const stranger = browser();
    expect(() => decrypt(actual.body, stranger.ecdh, stranger.auth)).toThrow();
  });

  it("defaults TTL to web-push's 4 weeks and sends a configured one as is", async () => {
    const receiver = browser();
    const sdkDefault = webPushSdk.generateRequestDetails(receiver.subscription, plaintext, {
      vapidDetails: { subject: credentials.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    });
    expect(String(sdkDefault.headers.TTL)).toBe("2419200");
    server.reset();
    server.answer(created);
    await sendWith(webpush, { credentials, baseUrl: null }, { to: receiver.token, content });
    await sendWith(webpush, { credentials: { ...credentials, ttlSeconds: 3600 }, baseUrl: null }, { to: receiver.token, content });
    expect(server.requests.map((r) => r.headers.ttl)).toEqual([String(sdkDefault.headers.TTL), "3600"]);
  });

  it("sends through baseUrl when one is set, keeping the push service as the JWT audience", async () => {
    const receiver = browser();
    const subscription = { ...receiver.subscription, endpoint: "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b" };
    server.reset();
    server.answer(created);
    await sendWith(webpush, { credentials, baseUrl: server.url }, { to: JSON.stringify(subscription), content });
    const request = server.requests[0]!;
    expect(request.path).toBe("/fcm/send/dGVzdA:APA91b");
    const jwt = verifyJwt(/t=([^,]+)/.exec(String(request.headers.authorization))![1]!, vapidPublicKey);
    expect(jwt.claims.aud).toBe("https://fcm.googleapis.com");
  });

  it("answers with Clarion's message id when the push service gives no Location", async () => {
    server.reset();
    server.answer({ status: 201, body: "" });
    const { outcome } = await sendWith(webpush, { credentials, baseUrl: null }, { to: browser().token, content });
    expect(outcome).toEqual({ ok: true, providerMessageId: "msg_conformance" });
  });

  it.each([
    ["not JSON", "ExponentPushToken[abc]"],
    ["no keys", JSON.stringify({ endpoint: "https://push.example.com/x" })],
    ["an endpoint that is not http(s)", JSON.stringify({ endpoint: "ftp://push.example.com/x", keys: { p256dh: "BA", auth: "AA" } })],
  ])("marks a push token that is %s invalid without calling anyone", async (_name, token) => {
    server.reset();
    const { outcome } = await sendWith(webpush, { credentials, baseUrl: null }, { to: token, content });
    expect(outcome).toMatchObject({ ok: false, kind: "invalid_recipient" });
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a payload over the 4096-byte record", async () => {
    server.reset();
    const { outcome } = await sendWith(
      webpush,
      { credentials, baseUrl: null },
      { to: browser().token, content: { ...content, body: "x".repeat(4000) } },
    );
    expect(outcome).toMatchObject({ ok: false, kind: "permanent", code: "payload_too_large" });
    expect(server.requests).toHaveLength(0);
  });

  it("checks that the VAPID keys form a pair", async () => {
    const integration = { id: "int_1", provider: "webpush", channel: "push" as const, credentials, settings: {}, baseUrl: null };
    expect(await webpush.check!(integration, localOutbound(AbortSignal.timeout(1000)))).toMatchObject({ ok: true });
    const other = webPushSdk.generateVAPIDKeys();
    const mismatched = { ...integration, credentials: { ...credentials, vapidPrivateKey: other.privateKey } };
    expect(await webpush.check!(mismatched, localOutbound(AbortSignal.timeout(1000)))).toMatchObject({ ok: false });
  });

  it.each([
    [404, {}, "invalid_recipient", "subscription_gone", undefined],
    [400, {}, "permanent", "http_400", undefined],
    [401, {}, "permanent", "http_401", undefined],
    [403, {}, "permanent", "http_403", undefined],
    [413, {}, "permanent", "http_413", undefined],
  ])("classifies HTTP %i", async (status, headers, kind, code, retryAfterSeconds) => {
    server.reset();
    server.answer({
      status,
      headers,
      body:
        status === 410 ? "push subscription has unsubscribed or expired.\n" : { code: status, errno: 0, error: "Error", message: "error" },
    });
    const { outcome } = await sendWith(webpush, { credentials, baseUrl: null }, { to: browser().token, content });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  });
});
