import { AlgorithmTypes, Auth } from "@vonage/auth";
import { SMS, TypeEnum } from "@vonage/sms";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vonage, vonageSignature } from "../../../src/providers/sms/vonage";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const SIGNATURE_SECRET = "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f";
const PUBLIC_URL = "https://clarion.example.com";
const credentials = {
  apiKey: "a1b2c3d4",
  apiSecret: "Sup3rS3cret!",
  from: "AcmeInc",
  signatureSecret: SIGNATURE_SECRET,
  signatureMethod: "sha256",
  publicUrl: PUBLIC_URL,
};
const integration: IntegrationConfig = {
  id: "int_conformance",
  provider: "vonage",
  channel: "sms",
  credentials,
  settings: {},
  baseUrl: null,
};
const callback = `${PUBLIC_URL}/v1/webhooks/vonage/int_conformance`;

const sent = (id: string) => ({
  "message-count": "1",
  messages: [
    {
      to: "447700900000",
      "message-id": id,
      status: "0",
      "remaining-balance": "3.14159265",
      "message-price": "0.03330000",
      network: "12345",
      "client-ref": "msg_conformance",
    },
  ],
});
const rejected = (status: string, text: string) => ({ "message-count": "1", messages: [{ status, "error-text": text }] });

const sdk = () => new SMS(new Auth({ apiKey: credentials.apiKey, apiSecret: credentials.apiSecret }), { restHost: server.url });

describe("vonage adapter matches the official SDK", () => {
  it.each([
    ["a GSM-7 text", "Your code is 123456 & it expires in 5 min", undefined],
    ["a text outside GSM-7 (as unicode)", "Ваш код 123456 ✓", TypeEnum.UNICODE],
  ])("sends the same request as `@vonage/sms` send for %s", async (_name, text, type) => {
    server.answer({ status: 200, body: sent("0A0000000123ABCD1") });
    await sdk().send({
      to: "+447700900000",
      from: credentials.from,
      text,
      clientRef: "msg_conformance",
      callback,
      ...(type ? { type } : {}),
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(vonage, { credentials, baseUrl: server.url }, { to: "+447700900000", content: { body: text } });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: "0A0000000123ABCD1" });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({ method: "POST", path: "/sms/json", contentType: "application/json", authScheme: "Basic" });
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it.each([
    ["status 1 throttled", rejected("1", "Throughput Rate Exceeded - please wait [ 1000 ] and retry"), "retryable", "status_1"],
    ["status 5 internal error", rejected("5", "Internal Error"), "retryable", "status_5"],
    ["status 7 number barred", rejected("7", "Number barred."), "invalid_recipient", "status_7"],
    ["status 33 number de-activated", rejected("33", "Number de-activated."), "invalid_recipient", "status_33"],
    ["status 4 bad credentials", rejected("4", "Bad Credentials"), "permanent", "status_4"],
    ["status 9 partner quota", rejected("9", "Partner quota violation, include more funds"), "permanent", "status_9"],
    ["status 15 invalid sender", rejected("15", "Illegal Sender Address - rejected"), "permanent", "status_15"],
  ])("classifies a 200 with %s", async (_name, answer, kind, code) => {
    server.answer({ status: 200, body: answer });
    const { outcome } = await sendWith(vonage, { credentials, baseUrl: server.url }, { to: "+447700900000", content: { body: "hi" } });
    expect(outcome).toMatchObject({ ok: false, kind, code, message: answer.messages[0]!["error-text"] });
  });

  it.each([[401, {}, "permanent", undefined]])("classifies HTTP %i as %s", async (status, headers, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body: { type: "https://developer.nexmo.com/api-errors", title: "error" } });
    const { outcome } = await sendWith(vonage, { credentials, baseUrl: server.url }, { to: "+447700900000", content: { body: "hi" } });
    expect(outcome).toMatchObject({ ok: false, kind, code: `http_${status}`, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });
});

describe("vonage delivery receipt", () => {
  const receipt = () => ({
    msisdn: "447700900000",
    to: "AcmeInc",
    "network-code": "23410",
    messageId: "0A0000000123ABCD1",
    price: "0.03330000",
    status: "delivered",
    scts: "2001011400",
    "err-code": "0",
    "api-key": credentials.apiKey,
    "client-ref": "msg_conformance",
    "message-timestamp": "2026-11-20 14:00:00",
    timestamp: String(Math.floor(Date.now() / 1000)),
    nonce: "5b2e0c1a-0c3e-4f8c-9a43-2f1d7d0e9f11",
  });

  it.each(["sha1", "sha256", "sha512"] as const)("agrees with `@vonage/sms` verifySignature (%s HMAC)", async (method) => {
    const params = receipt();
    const sig = await vonageSignature(params, SIGNATURE_SECRET, method);
    expect(sdk().verifySignature(sig, params, SIGNATURE_SECRET, AlgorithmTypes[`${method}hmac`])).toBe(true);
  });

  it("accepts a signed receipt sent as a form or as JSON", async () => {
    const params = receipt();
    const signed = { ...params, sig: await vonageSignature(params, SIGNATURE_SECRET, "sha256") };
    expect(await vonage.webhook!.verify({ headers: new Headers(), body: new URLSearchParams(signed).toString() }, integration)).toBe(true);
    expect(await vonage.webhook!.verify({ headers: new Headers(), body: JSON.stringify(signed) }, integration)).toBe(true);
  });

  it("rejects a tampered, stale or unsigned receipt", async () => {
    const params = receipt();
    const sig = await vonageSignature(params, SIGNATURE_SECRET, "sha256");
    const tampered = { ...params, status: "failed", sig };
    expect(await vonage.webhook!.verify({ headers: new Headers(), body: JSON.stringify(tampered) }, integration)).toBe(false);
    const stale = { ...params, timestamp: String(Math.floor(Date.now() / 1000) - 3600) };
    expect(
      await vonage.webhook!.verify(
        { headers: new Headers(), body: JSON.stringify({ ...stale, sig: await vonageSignature(stale, SIGNATURE_SECRET, "sha256") }) },
        integration,
      ),
    ).toBe(false);
    expect(await vonage.webhook!.verify({ headers: new Headers(), body: JSON.stringify(params) }, integration)).toBe(false);
    const { signatureSecret: _, ...unsigned } = credentials;
    expect(
      await vonage.webhook!.verify(
        { headers: new Headers(), body: JSON.stringify({ ...params, sig }) },
        { ...integration, credentials: unsigned },
      ),
    ).toBe(false);
  });

  it.each([
    ["delivered", "delivered"],
    ["failed", "failed"],
    ["rejected", "undeliverable"],
    ["expired", "undeliverable"],
  ])("reads status %s as %s", (vonageStatus, status) => {
    const updates = vonage.webhook!.parse(
      JSON.stringify({ ...receipt(), status: vonageStatus, "err-code": vonageStatus === "delivered" ? "0" : "6" }),
    );
    expect(updates).toEqual([
      {
        providerMessageId: "0A0000000123ABCD1",
        status,
        at: new Date("2026-11-20T14:00:00Z"),
        detail: { status: vonageStatus, ...(vonageStatus === "delivered" ? {} : { errorCode: "6" }) },
      },
    ]);
  });

  it("ignores accepted and buffered receipts", () => {
    expect(vonage.webhook!.parse(new URLSearchParams({ ...receipt(), status: "buffered" }).toString())).toEqual([]);
  });
});
