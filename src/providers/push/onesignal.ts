import { z } from "@hono/zod-openapi";
import { hex } from "../../lib/hex";
import { capped, failure, joinUrl, malformed, sendJson } from "../http";
import type { ProviderAdapter } from "../types";

const Credentials = z.object({
  appId: z.uuid().openapi({ description: "The OneSignal App ID." }),
  apiKey: z.string().min(1).openapi({ description: "An App API key (sent as `Authorization: Key …`).", writeOnly: true }),
  tokenType: z.enum(["subscription_id", "external_id"]).default("subscription_id").openapi({
    description:
      "What a subscriber's OneSignal push token is: a OneSignal subscription id (default) or the external_id the app logged the user in with.",
  }),
});

/**
 * A stable UUID per Clarion message, so a retried send is one notification: OneSignal drops a
 * second request with the same idempotency_key (keys must be UUIDs; message ids are not).
 */
async function idempotencyKey(messageId: string, to: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${messageId}:${to}`)));
  hash[6] = (hash[6]! & 0x0f) | 0x40;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hex(hash.subarray(0, 16));
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const CreateResponse = z
  .object({
    id: z.string().optional(),
    // An array of messages on 400s; an object listing invalid targets on a 200.
    errors: z
      .union([
        z.array(z.string()),
        z
          .object({
            invalid_aliases: z.record(z.string(), z.array(z.string())).optional(),
            invalid_player_ids: z.array(z.string()).optional(),
          })
          .loose(),
      ])
      .optional(),
  })
  .loose();

/** OneSignal push to one subscription (or external id) per request; the notification id is kept. */
export const onesignal: ProviderAdapter<"push"> = {
  deduplicates: true,
  id: "onesignal",
  channel: "push",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    const target =
      credentials.tokenType === "external_id"
        ? { include_aliases: { external_id: [request.to] } }
        : { include_subscription_ids: [request.to] };
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.onesignal.com", "/notifications"),
        headers: { authorization: `Key ${credentials.apiKey}`, "content-type": "application/json", accept: "application/json" },
        body: {
          app_id: credentials.appId,
          target_channel: "push",
          ...target,
          headings: { en: content.title },
          contents: { en: content.body },
          ...(content.data ? { data: content.data } : {}),
          ...(content.badge !== undefined ? { ios_badgeType: "SetTo", ios_badgeCount: content.badge } : {}),
          ...(content.sound ? { ios_sound: content.sound } : {}),
          ...(content.imageUrl ? { big_picture: content.imageUrl, ios_attachments: { image: content.imageUrl } } : {}),
          idempotency_key: await idempotencyKey(request.messageId, request.to),
          ...request.providerOverrides,
        },
        success: ({ json, text }) => {
          const body = CreateResponse.safeParse(json).data;
          const errors = body?.errors;
          const invalidTargets =
            errors &&
            !Array.isArray(errors) &&
            (Object.values(errors.invalid_aliases ?? {}).flat().length || errors.invalid_player_ids?.length);
          if (!invalidTargets && body?.id) return body.id;
          // `id: ""` with "All included players are not subscribed": nobody was sent to.
          const message = Array.isArray(errors) ? errors.join("; ") : text;
          return body?.id === "" || invalidTargets
            ? failure("invalid_recipient", "not_subscribed", message || "OneSignal sent the notification to nobody.")
            : malformed("OneSignal answered without a notification id.");
        },
        failure: ({ json, text, status }) => {
          const errors = CreateResponse.safeParse(json).data?.errors;
          return { message: (Array.isArray(errors) ? errors.join("; ") : capped(text)) || `OneSignal answered ${status}.` };
        },
      },
      outbound,
    );
  },
};
