import { createHash } from "node:crypto";
import { PublishCommand, SNSClient } from "@aws-sdk/client-sns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sns } from "../../../src/providers/sms/sns";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type Captured, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "eu-west-1",
  originationNumber: "+447700900123",
};
const MESSAGE_ID = "567910cd-659e-55d4-8ccb-5aaf14679dc0";
const published = `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${MESSAGE_ID}</MessageId></PublishResult><ResponseMetadata><RequestId>d74b8436-ae13-5ab4-a9ff-ce54dfea72a0</RequestId></ResponseMetadata></PublishResponse>`;
const xml = { "content-type": "text/xml" };
const body = "Your code is 123456 & it expires soon ✓";

/** The form body with the MessageAttributes map read back by attribute name, since entry numbering is free. */
function publishFields(r: Captured) {
  const fields = Object.fromEntries(new URLSearchParams(r.text));
  const attributes: Record<string, { type: string; value: string }> = {};
  const plain: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    const match = /^MessageAttributes\.entry\.(\d+)\.Name$/.exec(key);
    if (match)
      attributes[value] = {
        type: fields[`MessageAttributes.entry.${match[1]}.Value.DataType`]!,
        value: fields[`MessageAttributes.entry.${match[1]}.Value.StringValue`]!,
      };
    else if (!key.startsWith("MessageAttributes.")) plain[key] = value;
  }
  return { plain, attributes };
}

/** `AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, SignedHeaders=a;b, Signature=<hex>` */
function sigV4(r: Captured) {
  const header = String(r.headers.authorization);
  const [, key, , region, service] = /Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request/.exec(header) ?? [];
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(header)?.[1]?.split(";") ?? [];
  return { key, region, service, signedHeaders };
}

describe("sns adapter matches the official SDK", () => {
  it("sends the same Publish as `@aws-sdk/client-sns`", async () => {
    server.answer({ status: 200, headers: xml, body: published });
    const sdk = new SNSClient({ region: credentials.region, endpoint: server.url, credentials, maxAttempts: 1 });
    await sdk.send(
      new PublishCommand({
        PhoneNumber: "+14155552671",
        Message: body,
        MessageAttributes: {
          "AWS.MM.SMS.OriginationNumber": { DataType: "String", StringValue: credentials.originationNumber },
        },
      }),
    );
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(sns, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({
      method: "POST",
      path: "/",
      contentType: "application/x-www-form-urlencoded",
      authScheme: "AWS4-HMAC-SHA256",
    });
    expect(publishFields(actual)).toEqual(publishFields(expected));
    expect(publishFields(actual).plain).toMatchObject({ Action: "Publish", Version: "2010-03-31", PhoneNumber: "+14155552671" });
    expect(actual.text).toContain("PhoneNumber=%2B14155552671");

    const ours = sigV4(actual);
    const theirs = sigV4(expected);
    expect({ key: ours.key, region: ours.region, service: ours.service }).toEqual({ key: theirs.key, region: "eu-west-1", service: "sns" });
    expect(ours.signedHeaders).toEqual(expect.arrayContaining(["host", "x-amz-date", "content-type"]));
    const contentHash = actual.headers["x-amz-content-sha256"];
    if (contentHash) expect(contentHash).toBe(createHash("sha256").update(actual.body).digest("hex"));
  });

  it.each([
    ["left out", {}],
    ["null", { smsType: null }],
  ])("sends no AWS.SNS.SMS.SMSType when smsType is %s, as the SDK does (the account's default type applies)", async (_name, smsType) => {
    server.reset();
    server.answer({ status: 200, headers: xml, body: published });
    const { outcome } = await sendWith(
      sns,
      { credentials: { ...credentials, ...smsType }, baseUrl: server.url },
      { to: "+14155552671", content: { body } },
    );
    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(Object.keys(publishFields(server.requests.at(-1)!).attributes)).toEqual(["AWS.MM.SMS.OriginationNumber"]);
  });

  it.each(["Transactional", "Promotional"] as const)("sends smsType %s the way the SDK sends the attribute", async (smsType) => {
    server.answer({ status: 200, headers: xml, body: published });
    const sdk = new SNSClient({ region: credentials.region, endpoint: server.url, credentials, maxAttempts: 1 });
    await sdk.send(
      new PublishCommand({
        PhoneNumber: "+14155552671",
        Message: body,
        MessageAttributes: {
          "AWS.SNS.SMS.SMSType": { DataType: "String", StringValue: smsType },
          "AWS.MM.SMS.OriginationNumber": { DataType: "String", StringValue: credentials.originationNumber },
        },
      }),
    );
    const expected = server.requests.at(-1)!;
    server.reset();
    await sendWith(sns, { credentials: { ...credentials, smsType }, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    expect(publishFields(server.requests.at(-1)!)).toEqual(publishFields(expected));
    expect(publishFields(expected).attributes["AWS.SNS.SMS.SMSType"]).toEqual({ type: "String", value: smsType });
  });

  it("accepts null or no smsType in its credentials form, and refuses an unknown type", () => {
    expect(sns.credentials.safeParse({ ...credentials, smsType: null }).success).toBe(true);
    expect(sns.credentials.safeParse(credentials).success).toBe(true);
    expect(sns.credentials.safeParse({ ...credentials, smsType: "Marketing" }).success).toBe(false);
  });

  const error = (type: string, code: string, message: string) =>
    `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>9dd01905-5012-5f99-8663-4b3ecd0dfaef</RequestId></ErrorResponse>`;
  it.each([
    [400, {}, "InvalidParameter", "Invalid parameter: Message too long", "permanent", undefined],
    [400, {}, "InvalidParameterValue", "Invalid parameter value: MessageAttributes", "permanent", undefined],
    [403, {}, "AuthorizationError", "User is not authorized to perform: SNS:Publish", "permanent", undefined],
    [400, { "retry-after": "2" }, "Throttling", "Rate exceeded", "retryable", 2],
  ])("classifies HTTP %i %s (%s) as %s", async (status, headers, code, message, kind, retryAfterSeconds) => {
    server.answer({ status, headers: { ...xml, ...headers }, body: error(status >= 500 ? "Receiver" : "Sender", code, message) });
    const { outcome } = await sendWith(sns, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    expect(outcome).toMatchObject({ ok: false, kind, code, message, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });

  it("makes one request per send (aws4fetch's own retries are off)", async () => {
    server.reset();
    server.answer({ status: 503, headers: xml, body: error("Receiver", "ServiceUnavailable", "unavailable") });
    const { outcome } = await sendWith(sns, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    expect(outcome).toMatchObject({ ok: false, kind: "retryable" });
    expect(server.requests).toHaveLength(1);
  });
});
