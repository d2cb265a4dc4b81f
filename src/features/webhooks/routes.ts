import { z } from "@hono/zod-openapi";
import { createDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter } from "../../lib/openapi";
import { providerFor } from "../../providers/registry";
import { integrationById } from "../../delivery/integrations";
import { applyProviderStatuses } from "../messages/status";

export const webhooksRoutes = createRouter();

webhooksRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/webhooks/{provider}/{integrationId}",
    tags: ["Webhooks"],
    summary: "Receive a provider's delivery status webhook",
    description:
      "Point the provider's status webhook here. The body is verified with the provider's signature scheme using the integration's webhook secret, then matching messages move to delivered, bounced, failed, opened or clicked.",
    request: { params: z.object({ provider: z.string(), integrationId: z.string() }) },
    responses: {
      200: {
        description: "Processed",
        content: { "application/json": { schema: z.object({ received: z.number().int(), applied: z.number().int() }) } },
      },
    },
    errors: ["integration_not_found", "invalid_signature", "malformed_json"],
  }),
  async (c) => {
    const { provider, integrationId } = c.req.valid("param");
    const db = createDb(c.env.DB);
    const integration = await integrationById(db, integrationId, c.env.ENCRYPTION_KEY);
    const webhook = providerFor(provider)?.webhook;
    if (!integration || integration.provider !== provider || !webhook) {
      throw new ApiError("integration_not_found", `No ${provider} integration ${integrationId} receives status webhooks.`);
    }
    // Signatures cover the exact bytes sent, so the body is read raw, before any parsing.
    // Read as bytes: form-encoded callbacks (Twilio, Plivo) are not "text" to the runtime.
    const body = new TextDecoder().decode(await c.req.arrayBuffer());
    // Credentials that do not decrypt for this row verify nothing, even for a provider whose secret is optional.
    if (integration.credentialsError || !(await webhook.verify({ headers: c.req.raw.headers, body, url: c.req.url }, integration))) {
      throw new ApiError("invalid_signature", "The webhook signature does not verify with this integration's secret.");
    }
    let updates: ReturnType<typeof webhook.parse>;
    try {
      updates = webhook.parse(body);
    } catch {
      throw new ApiError("malformed_json", "The webhook body could not be read.");
    }
    const applied = await applyProviderStatuses(
      db,
      integration.id,
      updates.map((u) => ({
        providerMessageId: u.providerMessageId,
        report: { status: u.status, at: u.at, ...(u.detail ? { detail: u.detail } : {}) },
      })),
    );
    return c.json({ received: updates.length, applied }, 200);
  },
);
