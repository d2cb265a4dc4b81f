// The cron's sweep for deliveries whose Queue message was lost: what it queues again, and what it leaves.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../src/db/client";
import { events } from "../../../src/db/schema";
import { redeliverStranded } from "../../../src/features/events/endpoints/sweep";
import type { WebhookEndpointCreated } from "../../../src/features/events/endpoints/schemas";
import { newId } from "../../../src/lib/ids";
import { createEnvironment } from "../../factories";
import { api } from "../../request";

const MINUTE = 60_000;

describe("redeliverStranded", () => {
  it("queues again only deliveries dispatched over an hour ago to an endpoint unchanged since", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const endpoint = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
    expect(endpoint.status).toBe(201);
    const t0 = Date.now();
    const event = (dispatchedAt: number) => ({
      id: newId("evt"),
      environmentId,
      type: "message.sent" as const,
      data: {},
      createdAt: new Date(dispatchedAt),
      dispatchedAt: new Date(dispatchedAt),
    });
    const lost = event(t0 + MINUTE);
    const stillInBacklog = event(t0 + 90 * MINUTE);
    const beforeTheEndpoint = event(t0 - 10 * MINUTE);
    await createDb(env.DB).insert(events).values([lost, stillInBacklog, beforeTheEndpoint]);
    const sent: unknown[] = [];
    const queue = {
      sendBatch: async (messages: Parameters<typeof env.WEBHOOK_QUEUE.sendBatch>[0]) => {
        for (const m of messages) sent.push(m.body);
      },
    } as unknown as typeof env.WEBHOOK_QUEUE;
    await redeliverStranded({ DB: env.DB, WEBHOOK_QUEUE: queue }, new Date(t0 + 2 * 60 * MINUTE));
    const ours = sent.filter((b) => (b as { environmentId: string }).environmentId === environmentId);
    expect(ours).toEqual([{ type: "deliver", environmentId, eventId: lost.id, endpointId: endpoint.body.id }]);
  });
});
