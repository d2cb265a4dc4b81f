import { z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import type { Db } from "../../db/client";
import { unscopedDb } from "../../db/unscoped";
import { integrationById } from "../../db/queries/integrations";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter } from "../../lib/openapi";
import { providerFor } from "../../providers/registry";
import type { StatusUpdate } from "../../providers/types";
import { unscopedLogs } from "../../durable-objects/client/unscoped-logs";
import { applyProviderStatuses } from "../messages/status-repository";
import { claimReceipts, releaseReceipts } from "./receipts-repository";

export const providerCallbackRoutes = createRouter();

/** Status webhooks are small (SendGrid batches stay far below); anyone can post to these routes. */
export const WEBHOOK_BODY_LIMIT = 256 * 1024;

// Before the integration is looked up or a signature checked: an unauthenticated caller must
// not make the Worker read megabytes.
providerCallbackRoutes.use(
  "/v1/webhooks/*",
  bodyLimit({
    maxSize: WEBHOOK_BODY_LIMIT,
    onError: () => {
      throw new ApiError("payload_too_large", `A webhook body is at most ${WEBHOOK_BODY_LIMIT / 1024} KiB.`);
    },
  }),
);

/**
 * Which updates of a verified webhook are news: none when its delivery id was seen (a replay, even
 * with other contents where the signature does not cover them), else those whose event id is new.
 * An update with neither id is kept from repeating by the status rules alone.
 */
async function freshUpdates(db: Db, integrationId: string, updates: StatusUpdate[], deliveryId: string | null) {
  const delivery = deliveryId ? `delivery:${deliveryId}` : null;
  const events = updates.map((u) => (u.eventId ? `event:${u.eventId}` : null));
  const claimed = await claimReceipts(
    db,
    integrationId,
    [delivery, ...events].filter((k): k is string => k !== null),
  );
  if (delivery && !claimed.has(delivery)) {
    // A replayed delivery claims nothing: event ids it named stay free for a genuine report.
    await releaseReceipts(db, integrationId, [...claimed]);
    return { fresh: [], claimed: new Set<string>() };
  }
  return { fresh: updates.filter((_, i) => events[i] === null || claimed.has(events[i]!)), claimed };
}

providerCallbackRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/webhooks/{provider}/{integrationId}",
    tags: ["Webhooks"],
    summary: "Receive a provider's delivery status webhook",
    description: `Point the provider's status webhook here. The body (at most ${WEBHOOK_BODY_LIMIT / 1024} KiB) is verified with the provider's signature scheme using the integration's webhook secret, then matching messages move to delivered, bounced, failed, opened or clicked. A replayed event changes nothing; hard bounces, complaints and unsubscribes put the address on the suppression list.`,
    request: { params: z.object({ provider: z.string(), integrationId: z.string() }) },
    responses: {
      200: {
        description: "Processed",
        content: { "application/json": { schema: z.object({ received: z.number().int(), applied: z.number().int() }) } },
      },
    },
    errors: ["integration_not_found", "invalid_signature", "malformed_json", "payload_too_large"],
  }),
  async (c) => {
    const { provider, integrationId } = c.req.valid("param");
    const db = unscopedDb(c.env);
    const integration = await integrationById(db, integrationId, c.env.ENCRYPTION_KEY);
    const webhook = providerFor(provider)?.webhook;
    if (!integration || integration.provider !== provider || !webhook) {
      throw new ApiError("integration_not_found", `No ${provider} integration ${integrationId} receives status webhooks.`);
    }
    // Signatures cover the exact bytes sent, so the body is read raw, before any parsing.
    // Read as bytes: form-encoded callbacks (Twilio, Plivo) are not "text" to the runtime.
    const body = new TextDecoder().decode(await c.req.arrayBuffer());
    const request = { headers: c.req.raw.headers, body, url: c.req.url };
    // Credentials that do not decrypt for this row verify nothing, even for a provider whose secret is optional.
    if (integration.credentialsError || !(await webhook.verify(request, integration))) {
      throw new ApiError("invalid_signature", "The webhook signature does not verify with this integration's secret.");
    }
    let updates: StatusUpdate[];
    try {
      updates = webhook.parse(body);
    } catch {
      throw new ApiError("malformed_json", "The webhook body could not be read.");
    }
    const { fresh, claimed } = await freshUpdates(db, integration.id, updates, webhook.replayKey?.(request) ?? null);
    let applied: number;
    try {
      applied = await applyProviderStatuses(
        db,
        unscopedLogs(c.env),
        integration.id,
        fresh.map((u) => ({
          providerMessageId: u.providerMessageId,
          report: {
            ...(u.status ? { status: u.status } : {}),
            at: u.at,
            ...(u.detail ? { detail: u.detail } : {}),
            ...(u.suppress ? { suppress: u.suppress } : {}),
          },
        })),
        c.env,
      );
    } catch (error) {
      await releaseReceipts(db, integration.id, [...claimed]);
      throw error;
    }
    return c.json({ received: updates.length, applied }, 200);
  },
);
