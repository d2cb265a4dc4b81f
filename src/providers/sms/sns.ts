import { z } from "@hono/zod-openapi";
import { AwsClient } from "aws4fetch";
import { capped, classifyStatus, joinUrl, malformed, sendRequest } from "../http";
import type { FailureKind, ProviderAdapter } from "../types";

const Credentials = z.object({
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1).openapi({ writeOnly: true }),
  sessionToken: z.string().min(1).optional().openapi({ writeOnly: true }),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "An AWS region such as us-east-1."),
  originationNumber: z.string().min(1).optional().openapi({ description: "Sender number (AWS.MM.SMS.OriginationNumber), E.164." }),
  senderId: z
    .string()
    .min(1)
    .max(11)
    .optional()
    .openapi({ description: "Alphanumeric sender id (AWS.SNS.SMS.SenderID), where the country allows one." }),
  // Like @aws-sdk/client-sns, nothing is sent unless asked for: the account's DefaultSMSType applies.
  smsType: z.enum(["Transactional", "Promotional"]).nullish().openapi({
    description:
      "AWS.SNS.SMS.SMSType for each message. Empty (or null): not sent, so the account's default SMS type (SetSMSAttributes DefaultSMSType) applies.",
  }),
});

const RETRYABLE_CODES = new Set([
  "Throttled",
  "Throttling",
  "ThrottlingException",
  "ThrottledException",
  "KMSThrottling",
  "InternalError",
  "InternalFailure",
  "ServiceUnavailable",
]);

const xmlText = (xml: string, tag: string) => {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml)?.[1];
  return match
    ?.replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&");
};

function classify(status: number, code: string | undefined, message: string): FailureKind {
  if (code && RETRYABLE_CODES.has(code)) return "retryable";
  // SNS checks the number's form at once ("Invalid parameter: PhoneNumber Reason: ..."); opt-outs only show in delivery logs.
  if (code === "InvalidParameter" && /PhoneNumber/.test(message)) return "invalid_recipient";
  return classifyStatus(status);
}

export const sns: ProviderAdapter<"sms"> = {
  id: "sns",
  channel: "sms",
  credentials: Credentials,
  destinations: ["region"],

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const form = new URLSearchParams({ Action: "Publish", Version: "2010-03-31", PhoneNumber: request.to, Message: request.content.body });
    const attributes: [string, string][] = [];
    if (credentials.smsType) attributes.push(["AWS.SNS.SMS.SMSType", credentials.smsType]);
    if (credentials.senderId) attributes.push(["AWS.SNS.SMS.SenderID", credentials.senderId]);
    if (credentials.originationNumber) attributes.push(["AWS.MM.SMS.OriginationNumber", credentials.originationNumber]);
    attributes.forEach(([name, value], i) => {
      form.set(`MessageAttributes.entry.${i + 1}.Name`, name);
      form.set(`MessageAttributes.entry.${i + 1}.Value.DataType`, "String");
      form.set(`MessageAttributes.entry.${i + 1}.Value.StringValue`, value);
    });
    for (const [key, value] of Object.entries(request.providerOverrides)) form.set(key, String(value));

    const url = joinUrl(integration.baseUrl ?? `https://sns.${credentials.region}.amazonaws.com`, "/");
    const body = form.toString();
    // aws4fetch only signs here: the queue's retry policy is the only one (retries: 0).
    const aws = new AwsClient({
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
      service: "sns",
      region: credentials.region,
      retries: 0,
    });
    // aws4fetch leaves content-type out of the signature unless told to sign every header.
    const signed = await aws.sign(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body,
      aws: { allHeaders: true },
    });
    return sendRequest(
      {
        url,
        headers: signed.headers,
        body,
        success: ({ text }) => xmlText(text, "MessageId") || malformed("SNS answered without a MessageId."),
        failure: ({ text, status }) => {
          const code = xmlText(text, "Code");
          const message = xmlText(text, "Message") ?? capped(text);
          return { kind: classify(status, code, message), code: code ?? `http_${status}`, message };
        },
      },
      outbound,
    );
  },
};
