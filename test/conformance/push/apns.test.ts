// No official Node SDK from Apple (and APNs speaks only HTTP/2): the adapter's request is checked
// against Apple's documented format (providers.md §3.2), and its provider JWT is verified here.
import { generateKeyPairSync } from "node:crypto";
import { getOpenApiMetadata } from "@asteasolutions/zod-to-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apns } from "../../../src/providers/push/apns";
import type { IntegrationConfig } from "../../../src/providers/types";
import { localOutbound, sendWith } from "../adapter";
import { startCaptureServer, type CaptureServer } from "../capture-server";
import { tamper, verifyJwt } from "./jwt";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const keyPair = () =>
  generateKeyPairSync("ec", {
    namedCurve: "P-256",
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
const { privateKey, publicKey } = keyPair();
let teams = 0;
/** A fresh team id per test keeps the provider-token cache from carrying over between tests. */
const credentialsFor = (key = privateKey) => ({
  keyId: "ABC123DEFG",
  teamId: `DEF${String(++teams).padStart(7, "0")}`,
  privateKey: key,
  topic: "com.acme.app",
});
const DEVICE = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad";
const APNS_ID = "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E";
const content = {
  title: "Order shipped",
  body: "Order 42 is on its way ✓",
  data: { orderId: "42" },
  badge: 2,
  sound: "default",
  imageUrl: "https://cdn.example.com/box.png",
};
const ok = { status: 200, headers: { "apns-id": APNS_ID }, body: "" };

describe("apns adapter sends Apple's documented request to the relay", () => {
  it("POSTs /3/device/<token> with the apns headers, a bearer provider JWT and the aps payload", async () => {
    server.reset();
    server.answer(ok);
    const credentials = credentialsFor();
    const { outcome } = await sendWith(apns, { credentials, baseUrl: server.url }, { to: DEVICE, content });
    expect(outcome).toEqual({ ok: true, providerMessageId: APNS_ID });

    const request = server.requests[0]!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe(`/3/device/${DEVICE}`);
    expect(request.headers).toMatchObject({
      "apns-topic": "com.acme.app",
      "apns-push-type": "alert",
      "apns-priority": "10",
      "content-type": "application/json",
    });
    expect(request.headers["apns-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(request.text)).toEqual({
      aps: { alert: { title: content.title, body: content.body }, badge: 2, sound: "default", "mutable-content": 1 },
      orderId: "42",
      imageUrl: content.imageUrl,
    });

    const [scheme, token] = String(request.headers.authorization).split(" ");
    expect(scheme).toBe("bearer");
    const jwt = verifyJwt(token!, publicKey);
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toEqual({ alg: "ES256", kid: credentials.keyId });
    expect(jwt.claims).toEqual({ iss: credentials.teamId, iat: expect.any(Number) });
    // Young enough for Apple (< 1 h) with room to be reused: at most 30 minutes old.
    const age = Math.floor(Date.now() / 1000) - (jwt.claims.iat as number);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(30 * 60);
    expect(verifyJwt(tamper(token!), publicKey).valid).toBe(false);
    expect(verifyJwt(token!, keyPair().publicKey).valid).toBe(false);
  });

  it("reuses one provider token across sends", async () => {
    server.reset();
    server.answer(ok);
    const credentials = credentialsFor();
    await sendWith(apns, { credentials, baseUrl: server.url }, { to: DEVICE, content });
    await sendWith(apns, { credentials, baseUrl: server.url }, { to: DEVICE, content });
    const [first, second] = server.requests.map((r) => r.headers.authorization);
    expect(first).toBe(second);
  });

  it("signs a new provider token after 403 ExpiredProviderToken and retries", async () => {
    server.reset();
    server.answer({ status: 403, body: { reason: "ExpiredProviderToken" } }, ok);
    const credentials = credentialsFor();
    const { outcome } = await sendWith(apns, { credentials, baseUrl: server.url }, { to: DEVICE, content });
    expect(outcome).toMatchObject({ ok: false, kind: "retryable", code: "ExpiredProviderToken" });
    await sendWith(apns, { credentials, baseUrl: server.url }, { to: DEVICE, content });
    const [first, second] = server.requests.map((r) => r.headers.authorization);
    expect(second).not.toBe(first);
  });

  it("sends a background push with priority 5 and content-available", async () => {
    server.reset();
    server.answer(ok);
    await sendWith(
      apns,
      { credentials: { ...credentialsFor(), pushType: "background" }, baseUrl: server.url },
      { to: DEVICE, content: { title: "x", body: "y" } },
    );
    const request = server.requests[0]!;
    expect(request.headers).toMatchObject({ "apns-push-type": "background", "apns-priority": "5" });
    expect(JSON.parse(request.text)).toEqual({ aps: { "content-available": 1 } });
  });

  it("refuses to send without a relay baseUrl, and its check says why", async () => {
    server.reset();
    const credentials = credentialsFor();
    const { outcome } = await sendWith(apns, { credentials, baseUrl: null }, { to: DEVICE, content });
    expect(outcome).toMatchObject({ ok: false, kind: "permanent", code: "apns_relay_required" });
    expect(server.requests).toHaveLength(0);
    const integration: IntegrationConfig = { id: "int_1", provider: "apns", channel: "push", credentials, settings: {}, baseUrl: null };
    expect(await apns.check!(integration, localOutbound(AbortSignal.timeout(1000)))).toMatchObject({
      ok: false,
      detail: expect.stringContaining("HTTP/2"),
    });
    expect(await apns.check!({ ...integration, baseUrl: server.url }, localOutbound(AbortSignal.timeout(1000)))).toMatchObject({
      ok: true,
    });
  });

  it.each(
    (
      [
        [410, {}, { reason: "ExpiredToken" }, "invalid_recipient", "ExpiredToken", undefined],
        [400, {}, { reason: "BadDeviceToken" }, "invalid_recipient", "BadDeviceToken", undefined],
        [400, {}, { reason: "DeviceTokenNotForTopic" }, "invalid_recipient", "DeviceTokenNotForTopic", undefined],
        [400, {}, { reason: "BadTopic" }, "permanent", "BadTopic", undefined],
        [400, {}, { reason: "PayloadEmpty" }, "permanent", "PayloadEmpty", undefined],
        [403, {}, { reason: "InvalidProviderToken" }, "permanent", "InvalidProviderToken", undefined],
        [413, {}, { reason: "PayloadTooLarge" }, "permanent", "PayloadTooLarge", undefined],
      ] as const
    ).map((row) => [`${row[0]} ${row[4]}`, ...row] as const),
  )("classifies %s", async (_name, status, headers, body, kind, code, retryAfterSeconds) => {
    server.reset();
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(apns, { credentials: credentialsFor(), baseUrl: server.url }, { to: DEVICE, content });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  });

  it("describes baseUrl as required in its credential schema", () => {
    expect(getOpenApiMetadata(apns.credentials)?.description).toContain("baseUrl is REQUIRED");
  });
});
