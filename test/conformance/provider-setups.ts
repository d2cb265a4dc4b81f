// Per-provider hooks for the shared failure cases: how to build an integration and a message, and
// what the provider's answers look like. Typed by the registry, so a new adapter does not compile
// here until it has a setup (and failure-cases.test.ts checks the same at run time).
import { createECDH, generateKeyPairSync, randomBytes } from "node:crypto";
import type { ProviderId } from "../../src/providers/registry";
import type { NoHttp, ProviderSetup } from "./failure-cases";

const email = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks" };
const sms = { body: "Your code is 123456" };
const push = { title: "Order shipped", body: "Order 42 is on its way" };
const chat = { text: "Deploy finished" };
const PHONE = "+14155552671";

const ec = generateKeyPairSync("ec", {
  namedCurve: "P-256",
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const rsa = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const vapid = createECDH("prime256v1");
vapid.generateKeys();
const browser = createECDH("prime256v1");
browser.generateKeys();

/** A fresh token endpoint per send, so FCM's access-token cache never answers in place of the exchange. */
let tokenEndpoints = 0;

const awsError = (type: string, code: string, message: string) =>
  `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>9dd01905</RequestId></ErrorResponse>`;

const sandbox: NoHttp = { noHttp: "records the send and makes no request" };

export const SETUPS: Record<ProviderId, ProviderSetup | NoHttp> = {
  "sandbox-email": sandbox,
  "sandbox-sms": sandbox,
  "sandbox-push": sandbox,
  "sandbox-chat": sandbox,

  resend: {
    integration: (url) => ({ credentials: { apiKey: "re_123", from: "Acme <hi@acme.dev>" }, baseUrl: url }),
    to: () => "ada@example.com",
    content: email,
    success: { status: 200, body: { id: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c" } },
    successId: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      body: { statusCode: status, name: status === 429 ? "rate_limit_exceeded" : "internal_server_error", message: "error" },
    }),
  },
  sendgrid: {
    integration: (url) => ({ credentials: { apiKey: "SG.key", from: "Acme <hi@acme.dev>" }, baseUrl: url }),
    to: () => "ada@example.com",
    content: email,
    // 202 with an empty body: the id is the X-Message-Id header.
    success: { status: 202, headers: { "x-message-id": "W4Dr5sNsQ-ulZQ8Bmj7Vxw" }, body: "" },
    successId: "W4Dr5sNsQ-ulZQ8Bmj7Vxw",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { errors: [{ message: "error", field: null, help: null }] } }),
  },
  postmark: {
    integration: (url) => ({ credentials: { serverToken: "server-token", from: "Acme <hi@acme.dev>" }, baseUrl: url }),
    to: () => "ada@example.com",
    content: email,
    success: {
      status: 200,
      body: {
        To: "ada@example.com",
        SubmittedAt: "2024-01-01T00:00:00Z",
        MessageID: "b7bc2f4a-e38e-4336-af7d-e6c392c2f817",
        ErrorCode: 0,
        Message: "OK",
      },
    },
    successId: "b7bc2f4a-e38e-4336-af7d-e6c392c2f817",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { ErrorCode: status, Message: "error" } }),
    invalidRecipient: {
      status: 422,
      body: {
        ErrorCode: 406,
        Message: "You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ada@example.com.",
      },
    },
  },
  mailgun: {
    integration: (url) => ({ credentials: { apiKey: "key-123", domain: "mg.acme.dev", from: "Acme <hi@mg.acme.dev>" }, baseUrl: url }),
    to: () => "ada@example.com",
    content: email,
    success: { status: 200, body: { id: "<20240101120000.1.ABCDEF@mg.acme.dev>", message: "Queued. Thank you." } },
    successId: "20240101120000.1.ABCDEF@mg.acme.dev",
    idFrom: "answer",
  },
  ses: {
    integration: (url) => ({
      credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "secret", region: "eu-west-1", from: "hi@acme.dev" },
      baseUrl: url,
    }),
    to: () => "ada@example.com",
    content: email,
    success: { status: 200, body: { MessageId: "010201234567890a-11111111-2222-3333-4444-555555555555-000000" } },
    successId: "010201234567890a-11111111-2222-3333-4444-555555555555-000000",
    idFrom: "answer",
    errorBody: (status) => {
      const type = status === 429 ? "TooManyRequestsException" : "InternalFailure";
      return {
        status,
        headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.coral.service/` },
        body: { message: "error" },
      };
    },
  },
  brevo: {
    integration: (url) => ({ credentials: { apiKey: "xkeysib-123", from: "Acme <hi@acme.dev>" }, baseUrl: url }),
    to: () => "ada@example.com",
    content: email,
    success: { status: 201, body: { messageId: "<202401011200.12345678901@smtp-relay.mailin.fr>" } },
    successId: "<202401011200.12345678901@smtp-relay.mailin.fr>",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { code: status === 429 ? "too_many_requests" : "internal_error", message: "error" } }),
  },

  twilio: {
    integration: (url) => ({
      credentials: { accountSid: "AC0123456789abcdef0123456789abcdef", authToken: "token", from: "+15005550006" },
      baseUrl: url,
    }),
    to: () => PHONE,
    content: sms,
    success: { status: 201, body: { sid: "SM1f0e8ae6ade43cb3c0ce4525424e404f", status: "queued", to: PHONE, error_code: null } },
    successId: "SM1f0e8ae6ade43cb3c0ce4525424e404f",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { code: status === 429 ? 20429 : 20500, message: "error", status } }),
    invalidRecipient: {
      status: 400,
      body: {
        code: 21211,
        message: "The 'To' number +1555 is not a valid phone number.",
        more_info: "https://www.twilio.com/docs/errors/21211",
        status: 400,
      },
    },
  },
  vonage: {
    integration: (url) => ({ credentials: { apiKey: "a1b2c3d4", apiSecret: "secret", from: "AcmeInc" }, baseUrl: url }),
    to: () => PHONE,
    content: sms,
    success: {
      status: 200,
      body: { "message-count": "1", messages: [{ to: "14155552671", "message-id": "0A0000000123ABCD1", status: "0" }] },
    },
    successId: "0A0000000123ABCD1",
    idFrom: "answer",
    // Vonage answers HTTP 200 and puts the failure in the message's status.
    invalidRecipient: {
      status: 200,
      body: { "message-count": "1", messages: [{ status: "6", "error-text": "Unroutable message - rejected" }] },
    },
  },
  plivo: {
    integration: (url) => ({ credentials: { authId: "MAXXXXXXXXXXXXXXXXXX", authToken: "token", from: "+15005550006" }, baseUrl: url }),
    to: () => PHONE,
    content: sms,
    success: {
      status: 202,
      body: { api_id: "bb6e2b32", message: "message(s) queued", message_uuid: ["db3ce55a-7f1d-11e1-8ea7-1231380bc196"] },
    },
    successId: "db3ce55a-7f1d-11e1-8ea7-1231380bc196",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { api_id: "bb6e2b32", error: "error" } }),
  },
  telnyx: {
    integration: (url) => ({ credentials: { apiKey: "KEY0123", from: "+15550001111" }, baseUrl: url }),
    to: () => PHONE,
    content: sms,
    success: {
      status: 200,
      body: {
        data: { record_type: "message", id: "40385f64-5717-4562-b3fc-2c963f66afa6", to: [{ phone_number: PHONE, status: "queued" }] },
      },
    },
    successId: "40385f64-5717-4562-b3fc-2c963f66afa6",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      body: { errors: [{ code: String(status === 429 ? 10011 : 10007), title: "error", detail: "error" }] },
    }),
  },
  sns: {
    integration: (url) => ({
      credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "secret", region: "eu-west-1" },
      baseUrl: url,
    }),
    to: () => PHONE,
    content: sms,
    success: {
      status: 200,
      headers: { "content-type": "text/xml" },
      body: `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>567910cd-659e-55d4-8ccb-5aaf14679dc0</MessageId></PublishResult></PublishResponse>`,
    },
    successId: "567910cd-659e-55d4-8ccb-5aaf14679dc0",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      headers: { "content-type": "text/xml" },
      body: status === 429 ? awsError("Sender", "Throttled", "Rate exceeded") : awsError("Receiver", "InternalError", "Internal Error"),
    }),
    invalidRecipient: {
      status: 400,
      headers: { "content-type": "text/xml" },
      body: awsError("Sender", "InvalidParameter", "Invalid parameter: PhoneNumber Reason: +1555 is not valid to publish to"),
    },
  },

  fcm: {
    integration: (url) => ({
      credentials: {
        serviceAccount: {
          project_id: "clarion-demo",
          client_email: "fcm@clarion-demo.iam.gserviceaccount.com",
          private_key: rsa.privateKey,
        },
        tokenUri: `${url}/token/${++tokenEndpoints}`,
      },
      baseUrl: url,
    }),
    to: () => "fcm-registration-token:APA91bHun4MxP5egoKMwt2KZFBaFUH",
    content: push,
    before: [{ status: 200, body: { access_token: "ya29.token", expires_in: 3599, token_type: "Bearer" } }],
    success: { status: 200, body: { name: "projects/clarion-demo/messages/0:1700000000000000%31bd1c96" } },
    successId: "projects/clarion-demo/messages/0:1700000000000000%31bd1c96",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      body: { error: { code: status, message: "error", status: status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL", details: [] } },
    }),
    invalidRecipient: {
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
  },
  apns: {
    // The relay Apple's HTTP/2-only service needs is the capture server here.
    integration: (url) => ({
      credentials: { keyId: "ABC123DEFG", teamId: "DEF1234567", privateKey: ec.privateKey, topic: "com.acme.app" },
      baseUrl: url,
    }),
    to: () => "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad",
    content: push,
    success: { status: 200, headers: { "apns-id": "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E" }, body: "" },
    successId: "EC1BF194-B3B2-424A-89A9-5A918A6E6B5E",
    // Without an apns-id header, the one the adapter sent stands.
    idFrom: "optional",
    errorBody: (status) => ({ status, body: { reason: status === 429 ? "TooManyRequests" : "InternalServerError" } }),
    invalidRecipient: { status: 410, body: { reason: "Unregistered", timestamp: 1700000000000 } },
  },
  expo: {
    integration: (url) => ({ credentials: {}, baseUrl: url }),
    to: () => "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]",
    content: push,
    success: { status: 200, body: { data: [{ status: "ok", id: "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" }] } },
    successId: "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      body: { errors: [{ code: status === 429 ? "TOO_MANY_REQUESTS" : "INTERNAL_SERVER_ERROR", message: "error" }] },
    }),
    // Expo answers 200 with an error ticket.
    invalidRecipient: {
      status: 200,
      body: {
        data: [
          {
            status: "error",
            message: '"ExponentPushToken[x]" is not a registered push notification recipient',
            details: { error: "DeviceNotRegistered" },
          },
        ],
      },
    },
  },
  onesignal: {
    integration: (url) => ({ credentials: { appId: "0b8a4a1e-7a2f-4a7e-9f5c-1d2e3f4a5b6c", apiKey: "os_v2_app_key" }, baseUrl: url }),
    to: () => "1dd608f2-c6a1-11e3-851d-000c2940e62c",
    content: push,
    success: { status: 200, body: { id: "b98881cc-1e94-4366-bbd9-db8f3429292b", external_id: null } },
    successId: "b98881cc-1e94-4366-bbd9-db8f3429292b",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { errors: [status === 429 ? "Rate Limit Exceeded" : "Internal Server Error"] } }),
    // OneSignal answers 200 with an empty id when nobody was sent to.
    invalidRecipient: { status: 200, body: { id: "", errors: ["All included players are not subscribed"] } },
  },
  webpush: {
    integration: () => ({
      credentials: {
        vapidPublicKey: vapid.getPublicKey().toString("base64url"),
        vapidPrivateKey: vapid.getPrivateKey().toString("base64url"),
        subject: "mailto:ops@acme.dev",
      },
      baseUrl: null,
    }),
    to: (url) =>
      JSON.stringify({
        endpoint: `${url}/wpush/v2/gAAAAABmZ-conformance`,
        keys: { p256dh: browser.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
      }),
    content: push,
    success: { status: 201, headers: { location: "https://updates.push.services.mozilla.com/m/gAAAAABmZ-message" }, body: "" },
    successId: "https://updates.push.services.mozilla.com/m/gAAAAABmZ-message",
    // Without a Location, Clarion's own message id stands.
    idFrom: "optional",
    invalidRecipient: { status: 410, headers: { "content-type": "text/plain" }, body: "push subscription has unsubscribed or expired.\n" },
  },

  slack: {
    integration: () => ({ credentials: {}, baseUrl: null }),
    to: (url) => `${url}/services/T0001/B0001/XXXX`,
    content: chat,
    success: { status: 200, headers: { "content-type": "text/html" }, body: "ok" },
    // Slack answers `ok` and no id: Clarion's message id stands.
    successId: "msg_conformance",
    idFrom: "optional",
    errorBody: (status) => ({ status, headers: { "content-type": "text/html" }, body: status === 429 ? "rate_limited" : "rollup_error" }),
    invalidRecipient: { status: 404, headers: { "content-type": "text/html" }, body: "no_service" },
  },
  "slack-api": {
    integration: (url) => ({ credentials: { botToken: "xoxb-123-456-abcdef" }, baseUrl: url }),
    to: () => "C0123ABCD",
    content: chat,
    success: {
      status: 200,
      body: {
        ok: true,
        channel: "C0123ABCD",
        ts: "1503435956.000247",
        message: { text: chat.text, ts: "1503435956.000247", type: "message" },
      },
    },
    successId: "C0123ABCD:1503435956.000247",
    idFrom: "answer",
    errorBody: (status) => ({ status, body: { ok: false, error: status === 429 ? "ratelimited" : "internal_error" } }),
    // Slack's Web API answers HTTP 200 with `ok: false`.
    invalidRecipient: { status: 200, body: { ok: false, error: "channel_not_found" } },
  },
  discord: {
    integration: () => ({ credentials: {}, baseUrl: null }),
    to: (url) => `${url}/api/webhooks/1234567890123456789/aBcDeFgHiJkLmNoPqRsTuVwXyZ`,
    content: chat,
    success: { status: 200, body: { id: "1100000000000000001", channel_id: "1000000000000000000", content: chat.text, type: 0 } },
    successId: "1100000000000000001",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      body: status === 429 ? { message: "You are being rate limited.", global: false } : { message: "500: Internal Server Error", code: 0 },
    }),
    invalidRecipient: { status: 404, body: { message: "Unknown Webhook", code: 10015 } },
  },
  teams: {
    integration: () => ({ credentials: {}, baseUrl: null }),
    to: (url) => `${url}/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s1g`,
    content: chat,
    success: { status: 202, headers: { "x-ms-workflow-run-id": "08584620000000000000000000000CU00" }, body: "" },
    successId: "08584620000000000000000000000CU00",
    // Without a run id, Clarion's message id stands.
    idFrom: "optional",
    invalidRecipient: { status: 404, body: { error: { code: "WorkflowNotFound", message: "The workflow could not be found." } } },
  },
  telegram: {
    integration: (url) => ({ credentials: { botToken: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" }, baseUrl: url }),
    to: () => "987654321",
    content: chat,
    success: {
      status: 200,
      body: { ok: true, result: { message_id: 42, chat: { id: 987654321, type: "private" }, date: 1735689600, text: chat.text } },
    },
    successId: "987654321:42",
    idFrom: "answer",
    errorBody: (status) => ({
      status,
      body: { ok: false, error_code: status, description: status === 429 ? "Too Many Requests" : "Internal Server Error" },
    }),
    invalidRecipient: { status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } },
  },
  mattermost: {
    integration: () => ({ credentials: {}, baseUrl: null }),
    to: (url) => `${url}/hooks/xxx-generatedkey-xxx`,
    content: chat,
    success: { status: 200, headers: { "content-type": "text/plain" }, body: "ok" },
    // Mattermost answers `ok` and no id: Clarion's message id stands.
    successId: "msg_conformance",
    idFrom: "optional",
    invalidRecipient: {
      status: 400,
      body: {
        id: "web.incoming_webhook.invalid.app_error",
        message: "Invalid webhook.",
        detailed_error: "",
        request_id: "r1",
        status_code: 400,
      },
    },
  },
  webhook: {
    integration: () => ({ credentials: { secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }, baseUrl: null }),
    to: (url) => `${url}/hooks/clarion`,
    content: chat,
    success: { status: 204 },
    // A receiver names no id: Clarion's message id (the webhook-id header) stands.
    successId: "msg_conformance",
    idFrom: "optional",
    invalidRecipient: { status: 410, body: "gone" },
  },
};
