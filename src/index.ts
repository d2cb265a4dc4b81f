import { createApp } from "./app";
import { consumeDeadLetters } from "./delivery/dead-letters";
import { consumeDeliveryBatch } from "./delivery/consumer";
import { startChildTriggers } from "./features/triggers/child-trigger";
import { consumeWebhookBatch } from "./features/events/endpoints/consumer";
import { redeliverStranded, redispatchStale } from "./features/events/endpoints/sweep";
import { unscopedDb } from "./db/unscoped";
import { purgeExpired, retentionPolicy } from "./db/retention";
import { purgeWorkflowTombstones } from "./features/workflows/tombstones-repository";
import type { Bindings } from "./env";
import { unscopedLogs } from "./durable-objects/client/unscoped-logs";
import { enqueueOwedErasures } from "./features/environments/erasure-repository";
import { inInvocationScope } from "./lib/invocation-scope";

export { DigestObject } from "./durable-objects/digest-object";
export { FanOutCoordinator } from "./durable-objects/fan-out-coordinator";
export { LogShard } from "./durable-objects/log/log-shard";
export { InboxSocket } from "./durable-objects/inbox-socket/inbox-socket";
export { TriggerLedger } from "./durable-objects/ledger/trigger-ledger";
export { ThrottleObject } from "./durable-objects/throttle-object";

const app = createApp();
const DEAD_LETTER_QUEUE = "clarion-delivery-dlq";
const WEBHOOK_QUEUE = "clarion-webhooks";

// Each invocation in a scope of its own: its connection slots and shared timers are not another's (lib/invocation-scope.ts).
export default {
  fetch: (request: Request, env: Bindings, ctx: ExecutionContext) => inInvocationScope(() => app.fetch(request, env, ctx)),
  queue: (batch, env) =>
    inInvocationScope(async () => {
      if (batch.queue === DEAD_LETTER_QUEUE) await consumeDeadLetters(batch, env);
      else if (batch.queue === WEBHOOK_QUEUE) await consumeWebhookBatch(batch, env);
      else await consumeDeliveryBatch(batch, env, { startChildren: startChildTriggers });
    }),
  /** Retention (`[triggers] crons` in wrangler.toml): each run deletes a bounded number of expired rows. */
  async scheduled(controller, env) {
    const db = unscopedDb(env);
    const now = new Date(controller.scheduledTime);
    const report = await purgeExpired(db, retentionPolicy(env, now));
    const workflowTombstones = await purgeWorkflowTombstones(db, unscopedLogs(env), now);
    const eventsRedispatched = await redispatchStale(env, now);
    const deliveriesRequeued = await redeliverStranded(env, now);
    const environmentErasuresEnqueued = await enqueueOwedErasures(db, unscopedLogs(env), now);
    console.log(
      JSON.stringify({
        level: "info",
        message: "retention",
        cron: controller.cron,
        ...report,
        workflowTombstones,
        eventsRedispatched,
        deliveriesRequeued,
        environmentErasuresEnqueued,
      }),
    );
  },
} satisfies ExportedHandler<Bindings>;
