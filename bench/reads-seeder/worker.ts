// Fills the log shards through Clarion's own write path (LogStore: placement by subscriber, one
// call per shard per batch), so the rows, ids and indexes are those delivery writes. Each request
// writes messages [from, from + count) of a log of `total`: a one-step email's message as
// delivered (queued, sending, sent, a provider's id), spread evenly over `spanMs` before `newest`.
import { LogStore } from "../../src/durable-objects/client/log-store";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import type { Bindings } from "../../src/env";
import { newId, newLogId } from "../../src/lib/ids";

export { LogShard } from "../../src/durable-objects/log/log-shard";

interface Seed {
  environmentId: string;
  from: number;
  count: number;
  total: number;
  subscribers: number;
  newest: number;
  spanMs: number;
}

export default {
  async fetch(request: Request, env: Bindings): Promise<Response> {
    // bench/reads.mjs waits for this answer before it sends the first rows.
    if (request.method === "GET") return new Response("ready");
    const s = (await request.json()) as Seed;
    const store = new LogStore(env);
    const batch = store.batch();
    for (let i = s.from; i < s.from + s.count; i++) {
      const subscriberId = `reads-${i % s.subscribers}`;
      const id = newLogId("msg", subscriberPartition(s.environmentId, subscriberId));
      const at = s.newest - Math.floor(((s.total - 1 - i) * s.spanMs) / s.total);
      const providerMessageId = `sandbox_${newId("cap").slice(4)}`;
      batch.insert({
        id,
        environmentId: s.environmentId,
        transactionId: `reads-tx-${i}`,
        subscriberId,
        workflowKey: i % 10 === 0 ? "reads-digest" : "reads-order",
        stepId: "email",
        channel: "email",
        provider: "sandbox-email",
        integrationId: null,
        status: "sent",
        providerMessageId,
        to: `${subscriberId}@example.com`,
        subject: `Order ${i}`,
        preview: `Your order ${i} shipped.`,
        content: { subject: `Order ${i}`, text: `Your order ${i} shipped.` },
        errorCode: null,
        errorMessage: null,
        attempts: 1,
        createdAt: at,
        updatedAt: at + 40,
      });
      batch.event({ id: newId("evt"), environmentId: s.environmentId, messageId: id, status: "queued", at, detail: null });
      batch.event({ id: newId("evt"), environmentId: s.environmentId, messageId: id, status: "sending", at: at + 5, detail: null });
      batch.event({
        id: newId("evt"),
        environmentId: s.environmentId,
        messageId: id,
        status: "sent",
        at: at + 40,
        detail: { provider: "sandbox-email", providerMessageId },
      });
      batch.ref({ providerMessageId, environmentId: s.environmentId, messageId: id });
    }
    await store.write(batch);
    return Response.json({ written: s.count, shards: batch.shards });
  },
};
