import { createExecutionContext, createMessageBatch, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import worker from "../src/index";
import type { WebhookJob } from "../src/jobs/webhook-job";

interface Held {
  id: string;
  body: WebhookJob;
  attempts: number;
}

let sequence = 0;

/**
 * The Worker's bindings with the webhook Queue held in the test: what a request or a consumer
 * sends to it waits here until `drain()` hands it to the Worker's consumer, so a test reads a
 * receiver once delivery is done instead of polling it while the Queue gets round to it.
 */
export function holdWebhooks() {
  let held: Held[] = [];
  const hold = (body: WebhookJob) => held.push({ id: `held-webhook-${++sequence}`, body, attempts: 1 });
  const WEBHOOK_QUEUE = {
    async send(body: WebhookJob) {
      hold(body);
    },
    async sendBatch(messages: Iterable<MessageSendRequest<WebhookJob>>) {
      for (const message of messages) hold(message.body);
    },
  } as unknown as Queue<WebhookJob>;
  const heldEnv: typeof env = { ...env, WEBHOOK_QUEUE };

  return {
    env: heldEnv,

    /** Calls the Worker with these bindings and returns once the request's `waitUntil` work is done. */
    async fetch(path: string, init: RequestInit = {}) {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`http://clarion.test${path}`, init), heldEnv, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    },

    /** Runs the Worker's consumer on a batch with these bindings, as the Queue hands one over. */
    async consume(queue: string, batch: MessageBatch) {
      const ctx = createExecutionContext();
      await worker.queue(batch, heldEnv);
      return { queue, ...(await getQueueResult(batch, ctx)) };
    },

    /**
     * Delivers everything held, and what that delivery holds in turn, as the Queue would, then
     * returns once nothing is left. A message the consumer asks to retry is handed over again
     * (its delay skipped) while `retries` lasts, else dropped: the Queue would retry it later.
     */
    async drain({ retries = 0 } = {}) {
      let left = retries;
      const retried: WebhookJob[] = [];
      while (held.length) {
        const round = held;
        held = [];
        const batch = createMessageBatch<WebhookJob>(
          "clarion-webhooks",
          round.map((m) => ({ ...m, timestamp: new Date() })),
        );
        const result = await this.consume("clarion-webhooks", batch);
        const again = round.filter((m) => result.retryBatch.retry || result.retryMessages.some((r) => r.msgId === m.id));
        for (const message of again) {
          if (left > 0) held.push({ ...message, attempts: message.attempts + 1 });
          else retried.push(message.body);
        }
        if (again.length) left--;
      }
      return { retried };
    },
  };
}
