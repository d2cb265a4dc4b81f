import { ServerClient } from "postmark";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postmark } from "../../../src/providers/email/postmark";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = { serverToken: "server-token-123", from: "Acme <hi@acme.dev>", webhookUsername: "clarion", webhookPassword: "s3cret" };
const message = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks", replyTo: "help@acme.dev" };
const MESSAGE_ID = "b7bc2f4a-e38e-4336-af7d-e6c392c2f817";
const ok = {
  status: 200,
  body: { To: "ada@example.com", SubmittedAt: "2024-01-01T00:00:00Z", MessageID: MESSAGE_ID, ErrorCode: 0, Message: "OK" },
};

describe("postmark adapter matches the official SDK", () => {
  it("sends the same request as `postmark` sendEmail", async () => {
    server.answer(ok);
    const sdk = new ServerClient(credentials.serverToken, { useHttps: false, requestHost: server.url.replace("http://", "") });
    await sdk.sendEmail({
      From: credentials.from,
      To: "ada@example.com",
      Subject: message.subject,
      HtmlBody: message.html,
      TextBody: message.text,
      ReplyTo: message.replyTo,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(postmark, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({ method: "POST", path: "/email", contentType: "application/json" });
    expect(actual.headers["x-postmark-server-token"]).toBe(expected.headers["x-postmark-server-token"]);
    expect(actual.headers.accept).toBe("application/json");
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it("sends the configured message stream", async () => {
    server.answer(ok);
    await sendWith(
      postmark,
      { credentials: { ...credentials, messageStream: "broadcast" }, baseUrl: server.url },
      { to: "ada@example.com", content: message },
    );
    expect(JSON.parse(server.requests.at(-1)!.text)).toMatchObject({ MessageStream: "broadcast" });
  });

  it.each([
    [
      "401 bad token",
      401,
      {},
      { ErrorCode: 10, Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid." },
      "permanent",
      "postmark_10",
      undefined,
    ],
    [
      "422 invalid request",
      422,
      {},
      { ErrorCode: 300, Message: "Invalid 'To' address: 'not-an-address'." },
      "permanent",
      "postmark_300",
      undefined,
    ],
    [
      "422 sender signature not confirmed",
      422,
      {},
      { ErrorCode: 400, Message: "The 'From' address you supplied (hi@acme.dev) is not a Sender Signature on your account." },
      "permanent",
      "postmark_400",
      undefined,
    ],
  ])("classifies %s", async (_name, status, headers, body, kind, code, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(postmark, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });
});

describe("postmark webhooks (Basic auth, Postmark does not sign)", () => {
  const integration: IntegrationConfig = { id: "int_1", provider: "postmark", channel: "email", credentials, settings: {}, baseUrl: null };
  const basic = (user: string, password: string) =>
    new Headers({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });

  it("accepts the configured credentials and refuses others", async () => {
    expect(await postmark.webhook!.verify({ headers: basic("clarion", "s3cret"), body: "{}" }, integration)).toBe(true);
    expect(await postmark.webhook!.verify({ headers: basic("clarion", "wrong"), body: "{}" }, integration)).toBe(false);
    expect(await postmark.webhook!.verify({ headers: new Headers(), body: "{}" }, integration)).toBe(false);
  });

  it("refuses everything when no webhook credentials are configured", async () => {
    const bare = { ...integration, credentials: { serverToken: "t", from: "a@b.dev" } };
    expect(await postmark.webhook!.verify({ headers: basic("", ""), body: "{}" }, bare)).toBe(false);
  });

  it.each([
    [
      "Delivery",
      {
        RecordType: "Delivery",
        ServerID: 23,
        MessageStream: "outbound",
        MessageID: MESSAGE_ID,
        Recipient: "ada@example.com",
        Tag: "",
        DeliveredAt: "2024-01-01T10:00:00Z",
        Details: "smtp;250 2.0.0 OK",
        Metadata: {},
      },
      [{ providerMessageId: MESSAGE_ID, status: "delivered", at: new Date("2024-01-01T10:00:00Z"), detail: { event: "Delivery" } }],
    ],
    [
      "a hard Bounce",
      {
        RecordType: "Bounce",
        ID: 42,
        Type: "HardBounce",
        TypeCode: 1,
        MessageID: MESSAGE_ID,
        Email: "ada@example.com",
        BouncedAt: "2024-01-01T10:01:00Z",
        Inactive: true,
        CanActivate: true,
      },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "bounced",
          at: new Date("2024-01-01T10:01:00Z"),
          detail: { event: "Bounce", type: "HardBounce" },
          suppress: "hard_bounce",
          eventId: "Bounce:42",
        },
      ],
    ],
    [
      "a transient Bounce (Postmark retries)",
      { RecordType: "Bounce", Type: "Transient", TypeCode: 2, MessageID: MESSAGE_ID, BouncedAt: "2024-01-01T10:01:00Z", Inactive: false },
      [],
    ],
    [
      "a SpamComplaint",
      { RecordType: "SpamComplaint", Type: "SpamComplaint", MessageID: MESSAGE_ID, BouncedAt: "2024-01-01T10:02:00Z", Inactive: true },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "undeliverable",
          at: new Date("2024-01-01T10:02:00Z"),
          detail: { event: "SpamComplaint", type: "SpamComplaint" },
          suppress: "complaint",
        },
      ],
    ],
    [
      "an Open",
      { RecordType: "Open", MessageID: MESSAGE_ID, ReceivedAt: "2024-01-01T10:03:00Z", FirstOpen: true },
      [{ providerMessageId: MESSAGE_ID, status: "opened", at: new Date("2024-01-01T10:03:00Z"), detail: { event: "Open" } }],
    ],
  ])("parses %s", (_name, event, expected) => {
    expect(postmark.webhook!.parse(JSON.stringify(event))).toEqual(expected);
  });
});

const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": "<https://clarion.example/u/eyJhIjoxfQ.c2lnbmF0dXJl>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};

describe("postmark adapter: List-Unsubscribe (RFC 8058)", () => {
  it("passes the headers as the official SDK does", async () => {
    server.answer(ok);
    const sdk = new ServerClient(credentials.serverToken, { useHttps: false, requestHost: server.url.replace("http://", "") });
    await sdk.sendEmail({
      From: credentials.from,
      To: "ada@example.com",
      Subject: message.subject,
      HtmlBody: message.html,
      TextBody: message.text,
      Headers: Object.entries(LIST_UNSUBSCRIBE).map(([Name, Value]) => ({ Name, Value })),
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const content = { subject: message.subject, html: message.html, text: message.text, headers: LIST_UNSUBSCRIBE };
    await sendWith(postmark, { credentials, baseUrl: server.url }, { to: "ada@example.com", content });
    const actual = server.requests.at(-1)!;
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
    expect(JSON.parse(actual.text).Headers).toHaveLength(2);
  });
});
