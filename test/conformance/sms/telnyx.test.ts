import { generateKeyPairSync, sign } from "node:crypto";
import Telnyx from "telnyx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telnyx } from "../../../src/providers/sms/telnyx";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
// The portal shows the raw 32-byte key in base64: the tail of its SPKI encoding.
const PUBLIC_KEY = publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64");
const PUBLIC_URL = "https://clarion.example.com";
const credentials = { apiKey: "KEY0123456789ABCDEF_abcdefghijkl", from: "+15550001111", publicKey: PUBLIC_KEY, publicUrl: PUBLIC_URL };
const integration: IntegrationConfig = {
  id: "int_conformance",
  provider: "telnyx",
  channel: "sms",
  credentials,
  settings: {},
  baseUrl: null,
};
const webhookUrl = `${PUBLIC_URL}/v1/webhooks/telnyx/int_conformance`;
const MESSAGE_ID = "40385f64-5717-4562-b3fc-2c963f66afa6";
const body = "Your code is 123456 & it expires soon ✓";
const created = {
  data: {
    record_type: "message",
    direction: "outbound",
    id: MESSAGE_ID,
    type: "SMS",
    from: { phone_number: "+15550001111", carrier: "Telnyx", line_type: "Wireless" },
    to: [{ phone_number: "+14155552671", status: "queued", carrier: "T-Mobile USA", line_type: "Wireless" }],
    text: body,
    encoding: "UCS-2",
    parts: 1,
  },
};

const sdk = () => new Telnyx({ apiKey: credentials.apiKey, baseURL: `${server.url}/v2`, maxRetries: 0 });

describe("telnyx adapter matches the official SDK", () => {
  it("sends the same request as `telnyx` messages.send", async () => {
    server.answer({ status: 200, body: created });
    await sdk().messages.send({ from: credentials.from, to: "+14155552671", text: body, webhook_url: webhookUrl });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(telnyx, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({ method: "POST", path: "/v2/messages", contentType: "application/json", authScheme: "Bearer" });
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it("sends from a messaging profile when one is configured", async () => {
    server.answer({ status: 200, body: created });
    const messaging_profile_id = "4001767e-ce0f-4cae-9d5f-0d5e636e7809";
    await sdk().messages.send({ messaging_profile_id, to: "+14155552671", text: body });
    const expected = server.requests.at(-1)!;
    server.reset();
    await sendWith(
      telnyx,
      { credentials: { apiKey: credentials.apiKey, messagingProfileId: messaging_profile_id }, baseUrl: server.url },
      { to: "+14155552671", content: { body } },
    );
    expect(JSON.parse(server.requests.at(-1)!.text)).toEqual(JSON.parse(expected.text));
  });

  const error = (code: string, title: string, detail: string) => ({ errors: [{ code, title, detail, source: { pointer: "/to" } }] });
  it.each([
    [422, {}, error("40310", "Invalid 'to' address", "The 'to' address should be a valid E.164 phone number."), "permanent", undefined],
    [400, {}, error("10015", "Bad Request", "The request failed because it was not well-formed."), "permanent", undefined],
    [401, {}, error("10009", "Authentication failed", "The API key is invalid."), "permanent", undefined],
    [403, {}, error("10010", "Authorization failed", "Not allowed."), "permanent", undefined],
    [409, {}, error("10020", "Conflict", "Try again."), "retryable", undefined],
    [429, { "retry-after-ms": "1500" }, error("10011", "Too many requests", "Rate limit exceeded."), "retryable", 2],
  ])("classifies HTTP %i as %s", async (status, headers, answer, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body: answer });
    const { outcome } = await sendWith(telnyx, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    const first = answer.errors[0]!;
    expect(outcome).toMatchObject({
      ok: false,
      kind,
      code: first.code,
      message: `${first.title}: ${first.detail}`,
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    });
  });
});

describe("telnyx status webhook", () => {
  const event = (status: string) =>
    JSON.stringify({
      data: {
        event_type: "message.finalized",
        id: "4ee8c3a6-4995-4309-a3c6-38e3db9ea4be",
        occurred_at: "2026-11-20T14:00:01.123+00:00",
        record_type: "event",
        payload: {
          id: MESSAGE_ID,
          record_type: "message",
          to: [{ phone_number: "+14155552671", status, carrier: "T-Mobile USA", line_type: "Wireless" }],
          errors: status === "delivered" ? [] : [{ code: "40008", title: "Undeliverable", detail: "The message could not be delivered." }],
        },
      },
      meta: { attempt: 1, delivered_to: webhookUrl },
    });
  const signedHeaders = (raw: string, timestamp = String(Math.floor(Date.now() / 1000))) => ({
    "telnyx-timestamp": timestamp,
    "telnyx-signature-ed25519": sign(null, Buffer.from(`${timestamp}|${raw}`), privateKey).toString("base64"),
  });
  const signed = (raw: string, timestamp?: string) => new Headers(signedHeaders(raw, timestamp));

  it("accepts what the SDK's webhooks.unwrap accepts", async () => {
    const raw = event("delivered");
    const headers = signedHeaders(raw);
    await expect(new Telnyx({ apiKey: "x", publicKey: PUBLIC_KEY }).webhooks.unwrap(raw, { headers })).resolves.toBeTruthy();
    expect(await telnyx.webhook!.verify({ headers: new Headers(headers), body: raw }, integration)).toBe(true);
  });

  it("rejects a tampered body, a stale timestamp, another key and a missing signature", async () => {
    const raw = event("delivered");
    expect(await telnyx.webhook!.verify({ headers: signed(raw), body: raw.replace("delivered", "delivery_failed") }, integration)).toBe(
      false,
    );
    expect(
      await telnyx.webhook!.verify({ headers: signed(raw, String(Math.floor(Date.now() / 1000) - 600)), body: raw }, integration),
    ).toBe(false);
    const other = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64");
    expect(
      await telnyx.webhook!.verify(
        { headers: signed(raw), body: raw },
        { ...integration, credentials: { ...credentials, publicKey: other } },
      ),
    ).toBe(false);
    expect(await telnyx.webhook!.verify({ headers: new Headers(), body: raw }, integration)).toBe(false);
  });

  it.each([
    ["delivered", "delivered"],
    ["delivery_failed", "undeliverable"],
    ["sending_failed", "failed"],
  ])("reads to[].status %s as %s", (telnyxStatus, status) => {
    const [update] = telnyx.webhook!.parse(event(telnyxStatus));
    expect(update).toMatchObject({
      providerMessageId: MESSAGE_ID,
      status,
      at: new Date("2026-11-20T14:00:01.123Z"),
      detail: { event: "message.finalized", status: telnyxStatus },
    });
  });

  it("ignores a message.sent event whose recipient is only sent", () => {
    expect(telnyx.webhook!.parse(event("sent").replace("message.finalized", "message.sent"))).toEqual([]);
  });
});
