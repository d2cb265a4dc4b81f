import plivoSdk from "plivo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plivo, plivoV3Signature } from "../../../src/providers/sms/plivo";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const AUTH_ID = "MAXXXXXXXXXXXXXXXXXX";
const AUTH_TOKEN = "ZGY0ZjE2NmZlNzQ0YjFhNDc2Mzc2ZWQ5NGNjMWU5";
const PUBLIC_URL = "https://clarion.example.com";
const credentials = { authId: AUTH_ID, authToken: AUTH_TOKEN, from: "+14155550100", publicUrl: PUBLIC_URL };
const integration: IntegrationConfig = {
  id: "int_conformance",
  provider: "plivo",
  channel: "sms",
  credentials,
  settings: {},
  baseUrl: null,
};
const callbackUrl = `${PUBLIC_URL}/v1/webhooks/plivo/int_conformance`;
const queued = {
  api_id: "bb6e2b32-8d3b-11f0-9d5f-0242ac110002",
  message: "message(s) queued",
  message_uuid: ["db3ce55a-7f1d-11e1-8ea7-1231380bc196"],
};
const body = "Your code is 123456 & it expires soon ✓";

const sdk = () => new plivoSdk.Client(AUTH_ID, AUTH_TOKEN, { url: `${server.url}/v1/Account/${AUTH_ID}` });

describe("plivo adapter matches the official SDK", () => {
  it("sends the same request as `plivo` messages.create", async () => {
    server.answer({ status: 202, body: queued });
    await sdk().messages.create(credentials.from, "+14155552671", body, { url: callbackUrl, method: "POST" });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(plivo, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: queued.message_uuid[0] });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({
      method: "POST",
      path: `/v1/Account/${AUTH_ID}/Message/`,
      contentType: "application/json",
      authScheme: "Basic",
    });
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it("sends from a Powerpack when one is configured", async () => {
    server.answer({ status: 202, body: queued });
    const powerpackUUID = "d35f2e82-d387-427f-8594-6fa07703b6ce";
    await sdk().messages.create(null, "+14155552671", body, {}, powerpackUUID);
    const expected = server.requests.at(-1)!;
    server.reset();
    await sendWith(
      plivo,
      { credentials: { authId: AUTH_ID, authToken: AUTH_TOKEN, powerpackUuid: powerpackUUID }, baseUrl: server.url },
      { to: "+14155552671", content: { body } },
    );
    expect(JSON.parse(server.requests.at(-1)!.text)).toEqual(JSON.parse(expected.text));
  });

  it.each([
    [400, {}, { api_id: "1", error: "invalid 'dst' parameter" }, "permanent", undefined],
    [401, {}, { api_id: "1", error: "Authentication failed" }, "permanent", undefined],
    [404, {}, { api_id: "1", error: "not found" }, "permanent", undefined],
  ])("classifies HTTP %i as %s", async (status, headers, answer, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body: answer });
    const { outcome } = await sendWith(plivo, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    expect(outcome).toMatchObject({
      ok: false,
      kind,
      code: `http_${status}`,
      message: answer.error,
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    });
  });
});

describe("plivo status callback", () => {
  const params = {
    MessageUUID: queued.message_uuid[0]!,
    Status: "delivered",
    From: "+14155550100",
    To: "14155552671",
    TotalAmount: "0.00500",
    TotalRate: "0.00500",
    Units: "1",
    MCC: "310",
    MNC: "260",
    ErrorCode: "000",
    PartInfo: "1 of 1",
    ParentMessageUUID: queued.message_uuid[0]!,
  };
  const raw = new URLSearchParams(params).toString();
  const nonce = "12345678901234567890";

  it("accepts a V3 signature that `plivo` validateV3Signature accepts", async () => {
    const signature = await plivoV3Signature(AUTH_TOKEN, callbackUrl, Object.entries(params), nonce);
    expect(plivoSdk.validateV3Signature("POST", callbackUrl, nonce, AUTH_TOKEN, signature, params)).toBe(true);
    const headers = new Headers({ "x-plivo-signature-v3": `othersig=,${signature}`, "x-plivo-signature-v3-nonce": nonce });
    expect(await plivo.webhook!.verify({ headers, body: raw }, integration)).toBe(true);
  });

  it("signs a URL with a query the way the SDK does", async () => {
    const url = `${callbackUrl}?b=2&a=1`;
    const signature = await plivoV3Signature(AUTH_TOKEN, url, Object.entries(params), nonce);
    expect(plivoSdk.validateV3Signature("POST", url, nonce, AUTH_TOKEN, signature, params)).toBe(true);
  });

  it("rejects a tampered body or a signature for another URL", async () => {
    const signature = await plivoV3Signature(AUTH_TOKEN, callbackUrl, Object.entries(params), nonce);
    const headers = new Headers({ "x-plivo-signature-v3": signature, "x-plivo-signature-v3-nonce": nonce });
    expect(await plivo.webhook!.verify({ headers, body: raw.replace("delivered", "failed") }, integration)).toBe(false);
    const elsewhere = await plivoV3Signature(AUTH_TOKEN, "https://evil.example/cb", Object.entries(params), nonce);
    expect(
      await plivo.webhook!.verify(
        { headers: new Headers({ "x-plivo-signature-v3": elsewhere, "x-plivo-signature-v3-nonce": nonce }), body: raw },
        integration,
      ),
    ).toBe(false);
    expect(await plivo.webhook!.verify({ headers: new Headers(), body: raw }, integration)).toBe(false);
  });

  const v2Signature = async () => {
    const { createHmac } = await import("node:crypto");
    return createHmac("sha256", AUTH_TOKEN).update(`${callbackUrl}${nonce}`).digest("base64");
  };
  const optedIn: IntegrationConfig = { ...integration, credentials: { ...credentials, allowV2Signatures: true } };

  it("refuses a V2-signed callback by default, even with its body changed to any status", async () => {
    const signature = await v2Signature();
    expect(plivoSdk.validateSignature(callbackUrl, nonce, signature, AUTH_TOKEN)).toBe(true);
    const headers = new Headers({ "x-plivo-signature-v2": signature, "x-plivo-signature-v2-nonce": nonce });
    expect(await plivo.webhook!.verify({ headers, body: raw }, integration)).toBe(false);
    expect(await plivo.webhook!.verify({ headers, body: raw.replace("delivered", "failed") }, integration)).toBe(false);
  });

  it("accepts a V2 signature that `plivo` validateSignature accepts once the integration opts in, and rejects a wrong one", async () => {
    const signature = await v2Signature();
    expect(
      await plivo.webhook!.verify(
        { headers: new Headers({ "x-plivo-signature-v2": signature, "x-plivo-signature-v2-nonce": nonce }), body: raw },
        optedIn,
      ),
    ).toBe(true);
    expect(
      await plivo.webhook!.verify(
        { headers: new Headers({ "x-plivo-signature-v2": signature, "x-plivo-signature-v2-nonce": "other" }), body: raw },
        optedIn,
      ),
    ).toBe(false);
  });

  it.each([
    ["delivered", "delivered"],
    ["undelivered", "undeliverable"],
    ["failed", "failed"],
    ["rejected", "failed"],
  ])("reads Status %s as %s", (plivoStatus, status) => {
    const errorCode = plivoStatus === "delivered" ? "000" : "200";
    const updates = plivo.webhook!.parse(new URLSearchParams({ ...params, Status: plivoStatus, ErrorCode: errorCode }).toString());
    expect(updates).toEqual([
      {
        providerMessageId: params.MessageUUID,
        status,
        at: expect.any(Date),
        detail: { status: plivoStatus, ...(plivoStatus === "delivered" ? {} : { errorCode }) },
      },
    ]);
  });

  it("ignores queued and sent", () => {
    expect(plivo.webhook!.parse(new URLSearchParams({ ...params, Status: "sent" }).toString())).toEqual([]);
  });
});
