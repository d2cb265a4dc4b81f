import { z } from "@hono/zod-openapi";
import { capped, failure, joinUrl, malformed, retryAfterSeconds, sendJson } from "../http";
import type { FailureKind, ProviderAdapter } from "../types";

const Credentials = z.object({
  accessToken: z.string().min(1).optional().openapi({
    description: "Expo access token, needed only when the project has enhanced push security turned on.",
    writeOnly: true,
  }),
});

const Ticket = z.union([
  z.object({ status: z.literal("ok"), id: z.string() }),
  z.object({
    status: z.literal("error"),
    message: z.string().default(""),
    details: z.object({ error: z.string().optional() }).loose().optional(),
  }),
]);
const SendResponse = z.object({
  data: z.array(Ticket).optional(),
  errors: z.array(z.object({ code: z.string().optional(), message: z.string().optional() }).loose()).optional(),
});

const KIND_BY_TICKET_ERROR: Record<string, FailureKind> = {
  DeviceNotRegistered: "invalid_recipient",
  MessageRateExceeded: "retryable",
  ExpoError: "retryable",
};

/**
 * Expo's push service: one message per request (the body is still the array the SDK sends); the
 * ticket id is kept. Delivery status comes from receipts, which Expo offers only by polling.
 */
export const expo: ProviderAdapter<"push"> = {
  id: "expo",
  channel: "push",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://exp.host", "/--/api/v2/push/send"),
        headers: {
          accept: "application/json",
          "accept-encoding": "gzip, deflate",
          "content-type": "application/json",
          ...(credentials.accessToken ? { authorization: `Bearer ${credentials.accessToken}` } : {}),
        },
        body: [
          {
            to: request.to,
            title: content.title,
            body: content.body,
            ...(content.data ? { data: content.data } : {}),
            ...(content.badge !== undefined ? { badge: content.badge } : {}),
            ...(content.sound ? { sound: content.sound } : {}),
            ...(content.imageUrl ? { richContent: { image: content.imageUrl } } : {}),
            ...request.providerOverrides,
          },
        ],
        success: (answer) => {
          const body = SendResponse.safeParse(answer.json).data;
          const ticket = body?.data?.[0];
          if (ticket?.status === "ok") return ticket.id;
          const retryAfter = retryAfterSeconds(answer.headers.get("retry-after"));
          if (ticket) {
            const code = ticket.details?.error ?? "ticket_error";
            return failure(KIND_BY_TICKET_ERROR[code] ?? "permanent", code, ticket.message || answer.text, retryAfter);
          }
          const first = body?.errors?.[0];
          if (!first) return malformed("Expo answered without a ticket.");
          // A 200 with request-level `errors` (too many messages, mixed projects) is a request to fix.
          return failure(
            "permanent",
            first.code ?? `http_${answer.status}`,
            first.message ?? (answer.text || `Expo answered ${answer.status}.`),
            retryAfter,
          );
        },
        failure: ({ json, text, status }) => {
          const first = SendResponse.safeParse(json).data?.errors?.[0];
          return { code: first?.code ?? `http_${status}`, message: first?.message ?? (capped(text) || `Expo answered ${status}.`) };
        },
      },
      outbound,
    );
  },
};
