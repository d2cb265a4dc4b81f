import { headerList } from "./headers";
import { z } from "@hono/zod-openapi";
import { AwsV4Signer } from "aws4fetch";
import { capped, joinUrl, malformed, parseJson, sendRequest } from "../http";
import { confirmSnsSubscription, SnsMessage, verifySnsMessage } from "../sns-message";
import type { DeliveryStatus, FailureKind, ProviderAdapter, StatusUpdate } from "../types";

const Credentials = z.object({
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1).openapi({ writeOnly: true }),
  sessionToken: z.string().min(1).optional().openapi({ writeOnly: true }),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/)
    .openapi({ description: "SES region, e.g. eu-west-1." }),
  from: z.string().min(3).openapi({ description: 'Verified sender, e.g. "Acme <hi@acme.dev>".' }),
  configurationSetName: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "Configuration set whose event destination publishes to the SNS topic below." }),
  snsTopicArn: z
    .string()
    .startsWith("arn:")
    .optional()
    .openapi({ description: "SNS topic that receives the SES events; status webhooks from any other topic are refused." }),
  snsTrustedUrlPrefix: z.url().optional().openapi({
    description:
      "Only for SNS-compatible services (LocalStack) and tests: trust signing certificates under this URL besides sns.<region>.amazonaws.com.",
  }),
});

/** Error types (x-amzn-ErrorType) worth trying again later: throttling and the daily quota. */
const RETRYABLE_ERRORS = new Set([
  "TooManyRequestsException",
  "LimitExceededException",
  "ThrottlingException",
  "InternalFailure",
  "ServiceUnavailable",
]);

type SesAnswer = { MessageId?: string; message?: string; Message?: string; __type?: string };

const SesEvent = z
  .object({
    eventType: z.string().optional(),
    notificationType: z.string().optional(),
    mail: z.object({ messageId: z.string(), timestamp: z.string().optional() }).loose(),
    bounce: z.object({ bounceType: z.string(), bounceSubType: z.string().optional(), timestamp: z.string().optional() }).loose().optional(),
    complaint: z.object({ timestamp: z.string().optional() }).loose().optional(),
    delivery: z.object({ timestamp: z.string().optional() }).loose().optional(),
    open: z.object({ timestamp: z.string().optional() }).loose().optional(),
    click: z.object({ timestamp: z.string().optional() }).loose().optional(),
  })
  .loose();
type SesEvent = z.infer<typeof SesEvent>;

function statusOf(event: SesEvent): { status: DeliveryStatus; at?: string } | undefined {
  switch (event.eventType ?? event.notificationType) {
    case "Delivery":
      return { status: "delivered", at: event.delivery?.timestamp };
    case "Bounce":
      // Transient and undetermined bounces are retried by SES; only a permanent one is final.
      return event.bounce?.bounceType === "Permanent" ? { status: "bounced", at: event.bounce.timestamp } : undefined;
    case "Complaint":
      return { status: "undeliverable", at: event.complaint?.timestamp };
    case "Reject":
    case "RenderingFailure":
      return { status: "failed" };
    case "Open":
      return { status: "opened", at: event.open?.timestamp };
    case "Click":
      return { status: "clicked", at: event.click?.timestamp };
    default:
      return undefined;
  }
}

export const ses: ProviderAdapter<"email"> = {
  id: "ses",
  channel: "email",
  credentials: Credentials,
  destinations: ["region", "snsTrustedUrlPrefix"],

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    const body = (data: string) => ({ Data: data, Charset: "UTF-8" });
    const signed = await new AwsV4Signer({
      method: "POST",
      url: joinUrl(integration.baseUrl ?? `https://email.${credentials.region}.amazonaws.com`, "/v2/email/outbound-emails"),
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        FromEmailAddress: content.from ?? credentials.from,
        Destination: { ToAddresses: [request.to] },
        ...(content.replyTo ? { ReplyToAddresses: [content.replyTo] } : {}),
        Content: {
          Simple: {
            Subject: body(content.subject),
            Body: {
              ...(content.text !== undefined ? { Text: body(content.text) } : {}),
              ...(content.html !== undefined ? { Html: body(content.html) } : {}),
            },
            ...(content.headers ? { Headers: headerList(content.headers) } : {}),
          },
        },
        ...(credentials.configurationSetName ? { ConfigurationSetName: credentials.configurationSetName } : {}),
        ...request.providerOverrides,
      }),
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
      // Explicit: with a baseUrl (proxy, test server) the host no longer names the service and region.
      service: "ses",
      region: credentials.region,
      // aws4fetch leaves content-type unsigned by default; sign every header we set, as the AWS SDK does.
      allHeaders: true,
    }).sign();
    // Signed here and sent through the shared fetch, so the queue's retry policy is the only one.
    return sendRequest(
      {
        url: signed.url,
        method: signed.method,
        headers: signed.headers,
        body: signed.body ?? null,
        success: ({ json }) => (json as SesAnswer | undefined)?.MessageId || malformed("SES answered without a MessageId."),
        failure: ({ json, text, status, headers }) => {
          const parsed = json as SesAnswer | undefined;
          // restJson errors: the type is in x-amzn-ErrorType ("Name:http://…"), sometimes also __type ("ns#Name").
          const type = (headers.get("x-amzn-errortype") ?? parsed?.__type ?? `http_${status}`).split(":")[0]!.split("#").at(-1)!;
          const kind: FailureKind = RETRYABLE_ERRORS.has(type) || status === 429 || status >= 500 ? "retryable" : "permanent";
          return { kind, code: type, message: parsed?.message ?? parsed?.Message ?? capped(text) };
        },
      },
      outbound,
    );
  },

  webhook: {
    /**
     * SES events arrive through an SNS HTTPS subscription: the SNS signature is verified with the
     * certificate from SigningCertURL (trusted hosts only) and the topic must be the configured one.
     * A verified SubscriptionConfirmation is confirmed here, since the handshake needs no reply body.
     */
    async verify({ body }, integration) {
      const credentials = Credentials.safeParse(integration.credentials).data;
      if (!credentials?.snsTopicArn) return false;
      const message = await verifySnsMessage(body, {
        topicArn: credentials.snsTopicArn,
        trustedUrlPrefix: credentials.snsTrustedUrlPrefix,
      });
      if (!message) return false;
      if (message.Type === "SubscriptionConfirmation") return confirmSnsSubscription(message, credentials.snsTrustedUrlPrefix);
      return true;
    },
    parse(body) {
      const message = SnsMessage.safeParse(JSON.parse(body));
      if (!message.success || message.data.Type !== "Notification") return [];
      const event = SesEvent.safeParse(parseJson(message.data.Message));
      if (!event.success) return [];
      const result = statusOf(event.data);
      if (!result) return [];
      const update: StatusUpdate = {
        ...(result.status === "bounced" ? { suppress: "hard_bounce" as const } : {}),
        ...(result.status === "undeliverable" && (event.data.eventType ?? event.data.notificationType) === "Complaint"
          ? { suppress: "complaint" as const }
          : {}),
        eventId: message.data.MessageId,
        providerMessageId: event.data.mail.messageId,
        status: result.status,
        at: new Date(result.at ?? message.data.Timestamp),
        detail: {
          event: event.data.eventType ?? event.data.notificationType,
          ...(event.data.bounce ? { bounceType: event.data.bounce.bounceType, bounceSubType: event.data.bounce.bounceSubType } : {}),
        },
      };
      return [update];
    },
  },
};
