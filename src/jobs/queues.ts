import type { DeliveryJob } from "./job";

/** The two delivery queue bindings (env.ts types them so); named here so jobs/ needs nothing of env.ts, which names jobs/. */
type DeliveryQueues = { DELIVERY_QUEUE_0: Queue<DeliveryJob>; DELIVERY_QUEUE_1: Queue<DeliveryJob> };

/** Spreads triggers over the delivery queues: one queue takes about 5,000 messages/s. */
export function deliveryQueueFor(env: DeliveryQueues, transactionId: string): Queue<DeliveryJob> {
  let hash = 0;
  for (let i = 0; i < transactionId.length; i++) hash = (hash * 31 + transactionId.charCodeAt(i)) | 0;
  return (hash & 1) === 0 ? env.DELIVERY_QUEUE_0 : env.DELIVERY_QUEUE_1;
}
