import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../../../contract/event-types";
import { ATTEMPT_STATUSES } from "../../../contract/statuses";
import { pageOf, pageQuery } from "../../../lib/pagination";
import { idCursor } from "../../../lib/cursor";

/** Whether a URL names a user or password (`https://user:pass@host/`). */
const hasUserinfo = (url: string) => {
  try {
    const { username, password } = new URL(url);
    return username !== "" || password !== "";
  } catch {
    return false; // not a URL: z.url() says so
  }
};

const EventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .openapi({ description: "The event types sent to this endpoint. Omitted or null: every type, including types added later." });

/** Tenants an endpoint may name. */
export const MAX_ENDPOINT_TENANTS = 100;

const Tenants = z
  .array(z.string().trim().min(1).max(256))
  .min(1)
  .max(MAX_ENDPOINT_TENANTS)
  .openapi({ description: "Only events whose `data.tenant` is one of these. Omitted or null: every event, with a tenant or without." });

export const WebhookEndpointInput = z
  .object({
    url: z
      .string()
      .trim()
      .max(2048)
      .pipe(z.url())
      // A password in the URL would be shown by every read of the endpoint and kept in the audit log.
      .refine((url) => !hasUserinfo(url), {
        message:
          "Credentials in the URL (user:password@) are not allowed: they would be shown to every reader of the endpoint. Verify deliveries with the endpoint's signing secret (the webhook-signature header) instead.",
      })
      .openapi({
        description:
          "Where events are POSTed: `https://` to a public host, port 443 or 8443. No `user:password@`: receivers verify the signing secret instead.",
        example: "https://example.com/clarion/events",
      }),
    events: EventTypes.nullable().optional(),
    tenants: Tenants.nullable().optional(),
    description: z.string().trim().max(512).nullable().optional(),
    enabled: z.boolean().default(true),
  })
  .strict()
  .openapi("WebhookEndpointInput");
export type WebhookEndpointInput = z.infer<typeof WebhookEndpointInput>;

export const WebhookEndpointUpdate = WebhookEndpointInput.extend({ enabled: z.boolean() })
  .partial()
  .strict()
  .openapi("WebhookEndpointUpdate");
export type WebhookEndpointUpdate = z.infer<typeof WebhookEndpointUpdate>;

export const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: "ep_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6" }),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)).nullable().openapi({ description: "Null: every event type." }),
    tenants: z.array(z.string()).nullable().openapi({ description: "Null: events of every tenant and of none." }),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z.enum(["gone", "failing"]).nullable().openapi({
      description:
        "Why Clarion turned the endpoint off: `gone` (it answered 410), `failing` (five days of failed attempts). Null otherwise.",
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("WebhookEndpoint");
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

const Secret = z.string().openapi({
  description: "`whsec_` and the base64 of 32 random bytes: verify deliveries with it (the `standardwebhooks` package does).",
  example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
});

export const WebhookEndpointCreated = WebhookEndpoint.extend({ secret: Secret }).openapi("WebhookEndpointCreated");
export type WebhookEndpointCreated = z.infer<typeof WebhookEndpointCreated>;

export const WebhookEndpointSecret = z
  .object({
    secret: Secret,
    previousSecret: Secret.nullable().openapi({ description: "The secret before the last rotation while it still signs; null otherwise." }),
    previousSecretExpiresAt: z.iso.datetime().nullable(),
  })
  .openapi("WebhookEndpointSecret");
export type WebhookEndpointSecret = z.infer<typeof WebhookEndpointSecret>;

export const RotateSecretInput = z
  .object({
    overlapHours: z
      .number()
      .int()
      .min(0)
      .max(7 * 24)
      .default(24)
      .openapi({
        description: "Hours the old secret keeps signing beside the new one (every delivery carries both signatures). 0 ends it now.",
      }),
  })
  .strict()
  .openapi("RotateSecretInput");

export const WebhookEndpointList = pageOf(WebhookEndpoint).openapi("WebhookEndpointList");
export type WebhookEndpointList = z.infer<typeof WebhookEndpointList>;
export const WebhookEndpointQuery = pageQuery(100, idCursor);
export type WebhookEndpointQuery = z.infer<typeof WebhookEndpointQuery>;

export const EndpointIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "ep_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6" }),
});

export const WebhookAttempt = z
  .object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.enum(EVENT_TYPES),
    attempt: z.number().int().openapi({ description: "1 for the first try of this event at this endpoint." }),
    status: z.enum(ATTEMPT_STATUSES),
    responseStatus: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Null when no answer came (network error, timeout, refused destination)." }),
    latencyMs: z.number().int(),
    error: z.string().nullable(),
    nextAttemptAt: z.iso.datetime().nullable().openapi({ description: "When the next try is due; null when none follows." }),
    createdAt: z.iso.datetime(),
  })
  .openapi("WebhookAttempt");
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const AttemptQuery = z
  .object({
    status: z.enum(ATTEMPT_STATUSES).optional(),
    eventType: z.enum(EVENT_TYPES).optional(),
  })
  .extend(pageQuery(200, idCursor).shape);
export type AttemptQuery = z.infer<typeof AttemptQuery>;

export const WebhookAttemptList = pageOf(WebhookAttempt).openapi("WebhookAttemptList");
export type WebhookAttemptList = z.infer<typeof WebhookAttemptList>;

export const ReplayInput = z
  .object({
    since: z.iso.datetime().openapi({ description: "Events from this time on (the event log keeps them for the retention period)." }),
    until: z.iso.datetime().optional().openapi({ description: "Up to this time; default: now." }),
    onlyFailed: z.boolean().default(true).openapi({
      description:
        "Only events whose last attempt at this endpoint failed. False: every event meant for this endpoint (created since it was, of a type it takes).",
    }),
  })
  .strict()
  .openapi("ReplayInput");
export type ReplayInput = z.infer<typeof ReplayInput>;

export const ReplayResult = z
  .object({ queued: z.number().int().openapi({ description: "Events queued again, with their original ids." }) })
  .openapi("ReplayResult");
