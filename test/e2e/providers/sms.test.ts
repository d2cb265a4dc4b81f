import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hmacBase64 } from "../../../src/providers/signatures";
import { plivoV3Signature } from "../../../src/providers/sms/plivo";
import { twilioSignature } from "../../../src/providers/sms/twilio";
import { vonageSignature } from "../../../src/providers/sms/vonage";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../../factories";
import { createWorkflow, messageDetail, settledMessages, trigger } from "../helpers";

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
type Captured = { method: string; path: string; headers: Record<string, string>; body: string };
type Webhook = { headers: Record<string, string>; body: string };

/** Where the Worker is reached in tests: integrations name it as their public URL so callbacks are signed over it. */
const PUBLIC_URL = "http://clarion.test";
const PHONE = "+14155552671";
const TEXT = "Order 42 shipped & on its way";

const TWILIO_SID = "AC0123456789abcdef0123456789abcdef";
const TWILIO_TOKEN = "f1e2d3c4b5a697887766554433221100";
const VONAGE_SECRET = "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f";
const PLIVO_ID = "MAXXXXXXXXXXXXXXXXXX";
const PLIVO_TOKEN = "ZGY0ZjE2NmZlNzQ0YjFhNDc2Mzc2ZWQ5NGNjMWU5";

const bytesToBase64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const telnyxKeys = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
const TELNYX_PUBLIC_KEY = bytesToBase64((await crypto.subtle.exportKey("raw", telnyxKeys.publicKey)) as ArrayBuffer);

const callbackUrl = (provider: string, integrationId: string) => `${PUBLIC_URL}/v1/webhooks/${provider}/${integrationId}`;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formContentType = { "content-type": "application/x-www-form-urlencoded" };

interface SmsCase {
  provider: string;
  credentials: Record<string, unknown>;
  providerMessageId: string;
  /** The provider's success answer to the send. */
  answer: (providerMessageId: string) => Answer;
  path: string;
  checkRequest: (request: Captured, integrationId: string) => void;
  /** A correctly signed "delivered" status webhook, where the provider reports delivery. */
  deliveredWebhook?: (providerMessageId: string, integrationId: string) => Promise<Webhook>;
  /** The same webhook altered the way an attacker could. */
  tamper?: (webhook: Webhook) => Webhook;
}

const CASES: SmsCase[] = [
  {
    provider: "twilio",
    credentials: { accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, from: "+15005550006", publicUrl: PUBLIC_URL },
    providerMessageId: "SM1f0e8ae6ade43cb3c0ce4525424e404f",
    answer: (sid) => ({ status: 201, body: { sid, status: "queued", to: PHONE, from: "+15005550006", body: TEXT, error_code: null } }),
    path: `/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`,
    checkRequest: ({ headers, body }, integrationId) => {
      expect(headers.authorization).toBe(`Basic ${btoa(`${TWILIO_SID}:${TWILIO_TOKEN}`)}`);
      expect(headers["content-type"]).toContain("application/x-www-form-urlencoded");
      expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
        To: PHONE,
        From: "+15005550006",
        Body: TEXT,
        StatusCallback: callbackUrl("twilio", integrationId),
      });
    },
    deliveredWebhook: async (sid, integrationId) => {
      const fields = {
        SmsSid: sid,
        SmsStatus: "delivered",
        MessageStatus: "delivered",
        To: PHONE,
        MessageSid: sid,
        AccountSid: TWILIO_SID,
        From: "+15005550006",
        ApiVersion: "2010-04-01",
      };
      const signature = await twilioSignature(TWILIO_TOKEN, callbackUrl("twilio", integrationId), Object.entries(fields));
      return { headers: { ...formContentType, "x-twilio-signature": signature }, body: form(fields) };
    },
    tamper: (w) => ({ ...w, body: w.body.replace(/SmsSid=[^&]+/, "SmsSid=SMother") }),
  },
  {
    provider: "vonage",
    credentials: {
      apiKey: "a1b2c3d4",
      apiSecret: "Sup3rS3cret!",
      from: "AcmeInc",
      signatureSecret: VONAGE_SECRET,
      signatureMethod: "sha256",
      publicUrl: PUBLIC_URL,
    },
    providerMessageId: "0A0000000123ABCD1",
    answer: (id) => ({
      status: 200,
      body: {
        "message-count": "1",
        messages: [
          { to: PHONE.slice(1), "message-id": id, status: "0", "remaining-balance": "3.14", "message-price": "0.0333", network: "12345" },
        ],
      },
    }),
    path: "/sms/json",
    checkRequest: ({ headers, body }, integrationId) => {
      expect(headers.authorization).toBe(`Basic ${btoa("a1b2c3d4:Sup3rS3cret!")}`);
      expect(JSON.parse(body)).toEqual({
        from: "AcmeInc",
        to: PHONE,
        text: TEXT,
        "client-ref": expect.stringMatching(/^msg_/),
        callback: callbackUrl("vonage", integrationId),
      });
    },
    deliveredWebhook: async (id) => {
      const fields = {
        msisdn: PHONE.slice(1),
        to: "AcmeInc",
        "network-code": "23410",
        messageId: id,
        price: "0.0333",
        status: "delivered",
        scts: "2611201400",
        "err-code": "0",
        "api-key": "a1b2c3d4",
        "message-timestamp": new Date(Date.now() + 1000).toISOString().slice(0, 19).replace("T", " "),
        timestamp: String(Math.floor(Date.now() / 1000)),
        nonce: crypto.randomUUID(),
      };
      return {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...fields, sig: await vonageSignature(fields, VONAGE_SECRET, "sha256") }),
      };
    },
    tamper: (w) => ({ ...w, body: w.body.replace('"err-code":"0"', '"err-code":"1"') }),
  },
  {
    provider: "plivo",
    credentials: { authId: PLIVO_ID, authToken: PLIVO_TOKEN, from: "+14155550100", publicUrl: PUBLIC_URL },
    providerMessageId: "db3ce55a-7f1d-11e1-8ea7-1231380bc196",
    answer: (id) => ({
      status: 202,
      body: { api_id: "bb6e2b32-8d3b-11f0-9d5f-0242ac110002", message: "message(s) queued", message_uuid: [id] },
    }),
    path: `/v1/Account/${PLIVO_ID}/Message/`,
    checkRequest: ({ headers, body }, integrationId) => {
      expect(headers.authorization).toBe(`Basic ${btoa(`${PLIVO_ID}:${PLIVO_TOKEN}`)}`);
      expect(JSON.parse(body)).toEqual({
        src: "+14155550100",
        dst: PHONE,
        text: TEXT,
        url: callbackUrl("plivo", integrationId),
        method: "POST",
      });
    },
    deliveredWebhook: async (id, integrationId) => {
      const fields = {
        MessageUUID: id,
        Status: "delivered",
        From: "+14155550100",
        To: PHONE.slice(1),
        TotalAmount: "0.005",
        Units: "1",
        ErrorCode: "000",
        PartInfo: "1 of 1",
        ParentMessageUUID: id,
      };
      const nonce = String(Date.now());
      const signature = await plivoV3Signature(PLIVO_TOKEN, callbackUrl("plivo", integrationId), Object.entries(fields), nonce);
      return {
        headers: { ...formContentType, "x-plivo-signature-v3": signature, "x-plivo-signature-v3-nonce": nonce },
        body: form(fields),
      };
    },
    tamper: (w) => ({ ...w, body: w.body.replace("Units=1", "Units=2") }),
  },
  {
    provider: "telnyx",
    credentials: { apiKey: "KEY0123456789ABCDEF_abcdefghijkl", from: "+15550001111", publicKey: TELNYX_PUBLIC_KEY, publicUrl: PUBLIC_URL },
    providerMessageId: "40385f64-5717-4562-b3fc-2c963f66afa6",
    answer: (id) => ({
      status: 200,
      body: {
        data: {
          record_type: "message",
          id,
          to: [{ phone_number: PHONE, status: "queued" }],
          from: { phone_number: "+15550001111" },
          text: TEXT,
        },
      },
    }),
    path: "/v2/messages",
    checkRequest: ({ headers, body }, integrationId) => {
      expect(headers.authorization).toBe("Bearer KEY0123456789ABCDEF_abcdefghijkl");
      expect(JSON.parse(body)).toEqual({ from: "+15550001111", to: PHONE, text: TEXT, webhook_url: callbackUrl("telnyx", integrationId) });
    },
    deliveredWebhook: async (id) => {
      const body = JSON.stringify({
        data: {
          event_type: "message.finalized",
          id: crypto.randomUUID(),
          occurred_at: new Date(Date.now() + 1000).toISOString(),
          record_type: "event",
          payload: { id, record_type: "message", to: [{ phone_number: PHONE, status: "delivered" }], errors: [] },
        },
        meta: { attempt: 1 },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = await crypto.subtle.sign("Ed25519", telnyxKeys.privateKey, new TextEncoder().encode(`${timestamp}|${body}`));
      return {
        headers: {
          "content-type": "application/json",
          "telnyx-timestamp": timestamp,
          "telnyx-signature-ed25519": bytesToBase64(signature),
        },
        body,
      };
    },
    tamper: (w) => ({ ...w, body: w.body.replace('"attempt":1', '"attempt":2') }),
  },
  {
    provider: "sns",
    credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "eu-west-1" },
    providerMessageId: "567910cd-659e-55d4-8ccb-5aaf14679dc0",
    answer: (id) => ({
      status: 200,
      headers: { "content-type": "text/xml" },
      body: `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${id}</MessageId></PublishResult><ResponseMetadata><RequestId>d74b8436</RequestId></ResponseMetadata></PublishResponse>`,
    }),
    path: "/",
    checkRequest: ({ headers, body }) => {
      expect(headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/sns\/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
      );
      expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
        Action: "Publish",
        Version: "2010-03-31",
        PhoneNumber: PHONE,
        Message: TEXT,
        // No smsType configured: no SMSType attribute, as @aws-sdk/client-sns sends none (the account default applies).
      });
    },
  },
];

async function sentThrough(c: SmsCase) {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  await scenario.script([c.answer(c.providerMessageId)]);
  const integrationId = await createIntegration(id, {
    provider: c.provider,
    channel: "sms",
    credentials: c.credentials,
    baseUrl: scenario.baseUrl,
    primary: true,
  });
  await createWorkflow(key, {
    key: "shipped",
    steps: [{ id: "text", type: "sms", template: { body: "Order {{ payload.order }} shipped & on its way" } }],
  });
  const transactionId = await trigger(key, {
    workflow: "shipped",
    to: { subscriberId: unique("s"), phone: PHONE },
    payload: { order: 42 },
  });
  const [message] = await settledMessages(key, transactionId, 1);
  return { key, integrationId, scenario, message: message! };
}

const postWebhook = (provider: string, integrationId: string, { headers, body }: Webhook) =>
  SELF.fetch(`${PUBLIC_URL}/v1/webhooks/${provider}/${integrationId}`, { method: "POST", headers, body });

describe("SMS providers end to end", () => {
  it.each(CASES.map((c) => [c.provider, c] as const))(
    "%s: trigger → queue → provider → sent, then (where the provider reports status) a signed webhook → delivered",
    async (provider, c) => {
      const { key, integrationId, scenario, message } = await sentThrough(c);
      expect(message).toMatchObject({ status: "sent", provider, providerMessageId: c.providerMessageId, to: PHONE, attempts: 1 });

      const calls = await scenario.captured();
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ method: "POST", path: c.path });
      c.checkRequest(calls[0]!, integrationId);

      if (!c.deliveredWebhook) {
        // The provider has no status webhook: sent is as far as Clarion can know.
        expect((await postWebhook(provider, integrationId, { headers: {}, body: "{}" })).status).toBe(404);
        return;
      }
      const res = await postWebhook(provider, integrationId, await c.deliveredWebhook(c.providerMessageId, integrationId));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: 1, applied: 1 });
      const detail = await messageDetail(key, message.id);
      expect(detail.status).toBe("delivered");
      expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent", "delivered"]);
    },
  );

  it.each(CASES.filter((c) => c.deliveredWebhook && c.tamper).map((c) => [c.provider, c] as const))(
    "%s: a tampered status webhook is refused and changes nothing",
    async (provider, c) => {
      const { key, integrationId, message } = await sentThrough(c);
      const res = await postWebhook(provider, integrationId, c.tamper!(await c.deliveredWebhook!(c.providerMessageId, integrationId)));
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe("invalid_signature");
      expect((await messageDetail(key, message.id)).status).toBe("sent");
    },
  );

  it("twilio: 21211 (invalid To) makes the message undeliverable at once, without retries", async () => {
    const c = CASES[0]!;
    const { id, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    await scenario.script([
      {
        status: 400,
        body: {
          code: 21211,
          message: `The 'To' number ${PHONE} is not a valid phone number.`,
          more_info: "https://www.twilio.com/docs/errors/21211",
          status: 400,
        },
      },
    ]);
    await createIntegration(id, {
      provider: "twilio",
      channel: "sms",
      credentials: c.credentials,
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    await createWorkflow(key, { key: "shipped", steps: [{ id: "text", type: "sms", template: { body: TEXT } }] });
    const subscriberId = unique("s");
    const transactionId = await trigger(key, { workflow: "shipped", to: { subscriberId, phone: PHONE } });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "undeliverable", attempts: 1, error: { code: "21211" } });
    expect(await scenario.captured()).toHaveLength(1);
  });
});

describe("Plivo callback signatures", () => {
  const plivo = CASES.find((c) => c.provider === "plivo")!;

  /** A V2 signature covers the URL and the nonce only: any body posted with a captured pair verifies. */
  async function v2Signed(integrationId: string, body: string) {
    const nonce = String(Date.now());
    const signature = await hmacBase64("SHA-256", PLIVO_TOKEN, `${callbackUrl("plivo", integrationId)}${nonce}`);
    return { headers: { ...formContentType, "x-plivo-signature-v2": signature, "x-plivo-signature-v2-nonce": nonce }, body };
  }

  it("refuses a V2-signed callback whose body was changed, unless the integration opts in to V2", async () => {
    const { key, integrationId, message } = await sentThrough(plivo);
    const forged = form({ MessageUUID: plivo.providerMessageId, Status: "failed", ErrorCode: "200" });
    const res = await postWebhook("plivo", integrationId, await v2Signed(integrationId, forged));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("invalid_signature");
    expect((await messageDetail(key, message.id)).status).toBe("sent");
  });

  it("applies a V2-signed callback when the integration sets allowV2Signatures", async () => {
    const { key, integrationId, message } = await sentThrough({ ...plivo, credentials: { ...plivo.credentials, allowV2Signatures: true } });
    const delivered = form({ MessageUUID: plivo.providerMessageId, Status: "delivered", ErrorCode: "000" });
    expect((await postWebhook("plivo", integrationId, await v2Signed(integrationId, delivered))).status).toBe(200);
    expect((await messageDetail(key, message.id)).status).toBe("delivered");
  });
});
