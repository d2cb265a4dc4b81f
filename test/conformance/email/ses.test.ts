import { SendEmailCommand, SESv2Client } from "@aws-sdk/client-sesv2";
import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ses } from "../../../src/providers/email/ses";
import type { IntegrationConfig } from "../../../src/providers/types";
import { signSnsMessage, SNS_TEST_CERTIFICATE, snsNotification } from "../../fixtures/sns-signing";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type Captured, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-events";
const credentials = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "eu-west-1",
  from: "Acme <hi@acme.dev>",
  configurationSetName: "clarion-events",
  snsTopicArn: TOPIC,
};
const message = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks", replyTo: "help@acme.dev" };
const MESSAGE_ID = "0102018c6f3f2a7e-5c4d1a2b-1111-2222-3333-444455556666-000000";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** Recomputes a captured request's SigV4 signature from scratch (node:crypto), independent of any signer library. */
function checkSigV4(request: Captured, secretAccessKey: string) {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      String(request.headers.authorization),
    );
  if (!match) throw new Error(`not a SigV4 Authorization header: ${request.headers.authorization}`);
  const [, accessKeyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  const names = signedHeaders!.split(";");
  const canonicalHeaders = names.map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/g, " ")}\n`).join("");
  const url = new URL(request.path, "http://x");
  const canonicalRequest = [request.method, url.pathname, url.search.slice(1), canonicalHeaders, signedHeaders, sha256(request.body)].join(
    "\n",
  );
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", String(request.headers["x-amz-date"]), scope, sha256(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!), "aws4_request");
  return { accessKeyId, scope, signedHeaders: names, valid: hmac(key, stringToSign).toString("hex") === signature };
}

describe("ses adapter matches the official SDK", () => {
  it("sends the same request as `@aws-sdk/client-sesv2` SendEmailCommand, correctly signed", async () => {
    server.answer({ status: 200, body: { MessageId: MESSAGE_ID } });
    const sdk = new SESv2Client({
      region: credentials.region,
      endpoint: server.url,
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
      maxAttempts: 1,
    });
    await sdk.send(
      new SendEmailCommand({
        FromEmailAddress: credentials.from,
        Destination: { ToAddresses: ["ada@example.com"] },
        ReplyToAddresses: [message.replyTo],
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: "UTF-8" },
            Body: { Text: { Data: message.text, Charset: "UTF-8" }, Html: { Data: message.html, Charset: "UTF-8" } },
          },
        },
        ConfigurationSetName: credentials.configurationSetName,
      }),
    );
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(ses, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({
      method: "POST",
      path: "/v2/email/outbound-emails",
      contentType: "application/json",
      authScheme: "AWS4-HMAC-SHA256",
    });
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));

    const theirs = checkSigV4(expected, credentials.secretAccessKey);
    const ours = checkSigV4(actual, credentials.secretAccessKey);
    expect(theirs.valid).toBe(true);
    expect(ours).toMatchObject({ valid: true, accessKeyId: credentials.accessKeyId, scope: theirs.scope });
    expect(ours.scope).toMatch(/^\d{8}\/eu-west-1\/ses\/aws4_request$/);
    expect(ours.signedHeaders).toEqual(expect.arrayContaining(["content-type", "host", "x-amz-date"]));
  });

  it("signs the session token of temporary credentials", async () => {
    server.answer({ status: 200, body: { MessageId: MESSAGE_ID } });
    await sendWith(
      ses,
      { credentials: { ...credentials, sessionToken: "FQoGZXIvYXdzE-token" }, baseUrl: server.url },
      { to: "ada@example.com", content: message },
    );
    const request = server.requests.at(-1)!;
    expect(request.headers["x-amz-security-token"]).toBe("FQoGZXIvYXdzE-token");
    expect(checkSigV4(request, credentials.secretAccessKey)).toMatchObject({
      valid: true,
      signedHeaders: expect.arrayContaining(["x-amz-security-token"]),
    });
  });

  const awsError = (status: number, type: string, text: string) => ({
    status,
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/`, "x-amzn-requestid": "req-1" },
    body: { message: text },
  });

  it.each([
    [
      "400 LimitExceededException (daily quota)",
      awsError(400, "LimitExceededException", "Daily message quota exceeded."),
      "retryable",
      "LimitExceededException",
    ],
    [
      "400 MessageRejected",
      awsError(
        400,
        "MessageRejected",
        "Email address is not verified. The following identities failed the check in region EU-WEST-1: ada@example.com",
      ),
      "permanent",
      "MessageRejected",
    ],
    ["400 BadRequestException", awsError(400, "BadRequestException", "Missing final '@domain'"), "permanent", "BadRequestException"],
    [
      "400 AccountSuspendedException",
      awsError(400, "AccountSuspendedException", "Sending suspended for this account."),
      "permanent",
      "AccountSuspendedException",
    ],
    [
      "400 SendingPausedException",
      awsError(400, "SendingPausedException", "Sending is paused for this configuration set."),
      "permanent",
      "SendingPausedException",
    ],
    [
      "404 NotFoundException",
      awsError(404, "NotFoundException", "Configuration set <clarion-events> does not exist."),
      "permanent",
      "NotFoundException",
    ],
    [
      "403 signature",
      {
        status: 403,
        headers: { "x-amzn-errortype": "SignatureDoesNotMatch" },
        body: { message: "The request signature we calculated does not match the signature you provided." },
      },
      "permanent",
      "SignatureDoesNotMatch",
    ],
  ])("classifies %s", async (_name, answer, kind, code) => {
    server.answer(answer);
    const { outcome } = await sendWith(ses, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind, code });
  });
});

describe("ses status events through SNS", () => {
  const delivery = {
    eventType: "Delivery",
    mail: { timestamp: "2024-01-01T10:00:00.000Z", source: "hi@acme.dev", messageId: MESSAGE_ID, destination: ["ada@example.com"] },
    delivery: {
      timestamp: "2024-01-01T10:00:02.000Z",
      processingTimeMillis: 2000,
      recipients: ["ada@example.com"],
      smtpResponse: "250 2.0.0 OK",
    },
  };
  const integrationFor = (prefix: string): IntegrationConfig => ({
    id: "int_1",
    provider: "ses",
    channel: "email",
    credentials: { ...credentials, snsTrustedUrlPrefix: prefix },
    settings: {},
    baseUrl: null,
  });

  it("verifies an SNS notification signed with the certificate at SigningCertURL", async () => {
    server.answer({ status: 200, headers: { "content-type": "text/plain" }, body: SNS_TEST_CERTIFICATE });
    const prefix = `${server.url}/verify-ok`;
    const body = await snsNotification({
      topicArn: TOPIC,
      signingCertUrl: `${prefix}/SimpleNotificationService-1.pem`,
      sesEvent: delivery,
    });
    expect(
      await ses.webhook!.verify({ headers: new Headers({ "x-amz-sns-message-type": "Notification" }), body }, integrationFor(prefix)),
    ).toBe(true);
    expect(server.requests.at(-1)!.path).toBe("/verify-ok/SimpleNotificationService-1.pem");
  });

  it.each([
    [
      "a changed Message",
      async (prefix: string) =>
        (await snsNotification({ topicArn: TOPIC, signingCertUrl: `${prefix}/c.pem`, sesEvent: delivery })).replace("Delivery", "Bounce"),
    ],
    [
      "another topic",
      async (prefix: string) =>
        snsNotification({ topicArn: "arn:aws:sns:eu-west-1:999999999999:other", signingCertUrl: `${prefix}/c.pem`, sesEvent: delivery }),
    ],
    [
      "an untrusted certificate URL",
      async () => snsNotification({ topicArn: TOPIC, signingCertUrl: `${server.url}/elsewhere/c.pem`, sesEvent: delivery }),
    ],
    [
      "a certificate URL on a look-alike host",
      async () =>
        snsNotification({ topicArn: TOPIC, signingCertUrl: "https://sns.eu-west-1.amazonaws.com.evil.example/c.pem", sesEvent: delivery }),
    ],
    ["a body that is not an SNS message", async () => JSON.stringify(delivery)],
  ])("refuses %s", async (_name, build) => {
    server.answer({ status: 200, body: SNS_TEST_CERTIFICATE });
    const prefix = `${server.url}/refuse-${Math.random().toString(36).slice(2)}`;
    expect(await ses.webhook!.verify({ headers: new Headers(), body: await build(prefix) }, integrationFor(prefix))).toBe(false);
  });

  it("refuses everything when no topic is configured", async () => {
    server.answer({ status: 200, body: SNS_TEST_CERTIFICATE });
    const prefix = `${server.url}/no-topic`;
    const body = await snsNotification({ topicArn: TOPIC, signingCertUrl: `${prefix}/c.pem`, sesEvent: delivery });
    const { snsTopicArn: _omitted, ...withoutTopic } = credentials;
    expect(
      await ses.webhook!.verify(
        { headers: new Headers(), body },
        { ...integrationFor(prefix), credentials: { ...withoutTopic, snsTrustedUrlPrefix: prefix } },
      ),
    ).toBe(false);
  });

  it("confirms a verified subscription by visiting SubscribeURL", async () => {
    server.answer({ status: 200, body: SNS_TEST_CERTIFICATE });
    const prefix = `${server.url}/confirm`;
    const confirmation: Record<string, string> = {
      Type: "SubscriptionConfirmation",
      MessageId: "165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
      Token:
        "2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747ba6f3beb71854e285d6ad02428b09ceece29417f1f02d609c582afbacc99c583a916b9981dd2728f4ae6fdb82efd087cc3b7849e05798d2d2785c03b0879594eeac82c01f235d0e717736",
      TopicArn: TOPIC,
      Message: `You have chosen to subscribe to the topic ${TOPIC}.`,
      SubscribeURL: `${prefix}/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f`,
      Timestamp: "2024-01-01T10:00:00.000Z",
      SignatureVersion: "2",
      SigningCertURL: `${prefix}/c.pem`,
    };
    const body = JSON.stringify({ ...confirmation, Signature: await signSnsMessage(confirmation) });
    server.reset();
    expect(
      await ses.webhook!.verify(
        { headers: new Headers({ "x-amz-sns-message-type": "SubscriptionConfirmation" }), body },
        integrationFor(prefix),
      ),
    ).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual([
      "/confirm/c.pem",
      `/confirm/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f`,
    ]);
    expect(ses.webhook!.parse(body)).toEqual([]);
  });

  it.each([
    [
      "Delivery",
      delivery,
      [{ providerMessageId: MESSAGE_ID, status: "delivered", at: new Date("2024-01-01T10:00:02.000Z"), detail: { event: "Delivery" } }],
    ],
    [
      "a permanent Bounce",
      {
        eventType: "Bounce",
        mail: delivery.mail,
        bounce: {
          bounceType: "Permanent",
          bounceSubType: "OnAccountSuppressionList",
          timestamp: "2024-01-01T10:00:03.000Z",
          bouncedRecipients: [{ emailAddress: "ada@example.com" }],
        },
      },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "bounced",
          at: new Date("2024-01-01T10:00:03.000Z"),
          detail: { event: "Bounce", bounceType: "Permanent", bounceSubType: "OnAccountSuppressionList" },
          suppress: "hard_bounce",
        },
      ],
    ],
    [
      "a transient Bounce (SES retries)",
      { eventType: "Bounce", mail: delivery.mail, bounce: { bounceType: "Transient", bounceSubType: "MailboxFull" } },
      [],
    ],
    [
      "a Complaint (legacy notificationType)",
      {
        notificationType: "Complaint",
        mail: delivery.mail,
        complaint: { timestamp: "2024-01-01T10:00:04.000Z", complainedRecipients: [{ emailAddress: "ada@example.com" }] },
      },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "undeliverable",
          at: new Date("2024-01-01T10:00:04.000Z"),
          detail: { event: "Complaint" },
          suppress: "complaint",
        },
      ],
    ],
    ["a Send", { eventType: "Send", mail: delivery.mail, send: {} }, []],
  ])("parses %s", async (_name, sesEvent, expected) => {
    const body = await snsNotification({ topicArn: TOPIC, signingCertUrl: "https://sns.eu-west-1.amazonaws.com/c.pem", sesEvent });
    // The SNS MessageId names the notification across SNS's retries: the replay key of each update.
    const eventId = (JSON.parse(body) as { MessageId: string }).MessageId;
    expect(ses.webhook!.parse(body)).toEqual(expected.map((update) => ({ ...update, eventId })));
  });
});

const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": "<https://clarion.example/u/eyJhIjoxfQ.c2lnbmF0dXJl>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};

describe("ses adapter: List-Unsubscribe (RFC 8058)", () => {
  it("passes the headers as the official SDK does", async () => {
    server.answer({ status: 200, body: { MessageId: MESSAGE_ID } });
    const sdk = new SESv2Client({
      region: credentials.region,
      endpoint: server.url,
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
      maxAttempts: 1,
    });
    await sdk.send(
      new SendEmailCommand({
        FromEmailAddress: credentials.from,
        Destination: { ToAddresses: ["ada@example.com"] },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: "UTF-8" },
            Body: { Text: { Data: message.text, Charset: "UTF-8" }, Html: { Data: message.html, Charset: "UTF-8" } },
            Headers: Object.entries(LIST_UNSUBSCRIBE).map(([Name, Value]) => ({ Name, Value })),
          },
        },
        ConfigurationSetName: credentials.configurationSetName,
      }),
    );
    const expected = server.requests.at(-1)!;
    server.reset();

    const content = { subject: message.subject, html: message.html, text: message.text, headers: LIST_UNSUBSCRIBE };
    await sendWith(ses, { credentials, baseUrl: server.url }, { to: "ada@example.com", content });
    const actual = server.requests.at(-1)!;
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
    expect(JSON.parse(actual.text).Content.Simple.Headers).toHaveLength(2);
  });
});
