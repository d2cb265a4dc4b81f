import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dispatchEvents } from "../../../src/delivery/webhooks/dispatch";
import { EVENTS_PER_DISPATCH } from "../../../src/jobs/webhook-job";
import { unique } from "../../factories";

describe("dispatchEvents", () => {
  it("sends more than 100 dispatch messages in sendBatch calls of at most 100 (the Queue's limit)", async () => {
    const ids = Array.from({ length: EVENTS_PER_DISPATCH * 100 + 1 }, (_, i) => `evt_${i}`);
    const sizes: number[] = [];
    const queue = {
      sendBatch: (messages: Parameters<typeof env.WEBHOOK_QUEUE.sendBatch>[0], options?: QueueSendBatchOptions) => {
        const list = [...messages];
        sizes.push(list.length);
        return env.WEBHOOK_QUEUE.sendBatch(list, options);
      },
    } as typeof env.WEBHOOK_QUEUE;
    // An environment nobody has: the consumer finds none of these events and sends nothing.
    await dispatchEvents({ WEBHOOK_QUEUE: queue }, unique("env"), ids);
    expect(sizes).toEqual([100, 1]);
  });
});
