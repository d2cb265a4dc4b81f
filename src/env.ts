import type { DeliveryJob, DeadLetter } from "./delivery/job";
import type { DigestObject } from "./durable-objects/digest-object";
import type { ThrottleObject } from "./durable-objects/throttle-object";
import type { TriggerObject } from "./durable-objects/trigger-object";

/** Bindings declared in wrangler.toml plus the secrets read from `.dev.vars` or `wrangler secret`. */
export interface Bindings {
  DB: D1Database;
  DELIVERY_QUEUE_0: Queue<DeliveryJob>;
  DELIVERY_QUEUE_1: Queue<DeliveryJob>;
  DEAD_LETTER_QUEUE: Queue<DeadLetter>;
  TRIGGERS: DurableObjectNamespace<TriggerObject>;
  THROTTLES: DurableObjectNamespace<ThrottleObject>;
  DIGESTS: DurableObjectNamespace<DigestObject>;
  /** Where this deployment is reached from outside: tracking links point here. */
  PUBLIC_URL: string;
  /** Base64 AES-256 key for integration credentials and signed tracking links. */
  ENCRYPTION_KEY?: string;
}

export interface Variables {
  environmentId: string;
  requestId: string;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };

/** Spreads triggers over the delivery queues: one queue takes about 5,000 messages/s. */
export function deliveryQueueFor(env: Bindings, transactionId: string): Queue<DeliveryJob> {
  let hash = 0;
  for (let i = 0; i < transactionId.length; i++) hash = (hash * 31 + transactionId.charCodeAt(i)) | 0;
  return (hash & 1) === 0 ? env.DELIVERY_QUEUE_0 : env.DELIVERY_QUEUE_1;
}
