import type { Bindings } from "../env";
import type { DeliveryJob } from "./job";

/** Spreads triggers over the delivery queues: one queue takes about 5,000 messages/s. */
export function deliveryQueueFor(env: Pick<Bindings, "DELIVERY_QUEUE_0" | "DELIVERY_QUEUE_1">, transactionId: string): Queue<DeliveryJob> {
  let hash = 0;
  for (let i = 0; i < transactionId.length; i++) hash = (hash * 31 + transactionId.charCodeAt(i)) | 0;
  return (hash & 1) === 0 ? env.DELIVERY_QUEUE_0 : env.DELIVERY_QUEUE_1;
}
