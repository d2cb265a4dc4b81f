import type { DeadLetter, DeliveryJob } from "./delivery/job";
import type { DigestObject } from "./durable-objects/digest-object";
import type { FanOutCoordinator } from "./durable-objects/fan-out-coordinator";
import type { TriggerLedger } from "./durable-objects/ledger/trigger-ledger";
import type { ThrottleObject } from "./durable-objects/throttle-object";

/** Bindings declared in wrangler.toml plus the secrets read from `.dev.vars` or `wrangler secret`. */
export interface Bindings {
  DB: D1Database;
  DELIVERY_QUEUE_0: Queue<DeliveryJob>;
  DELIVERY_QUEUE_1: Queue<DeliveryJob>;
  DEAD_LETTER_QUEUE: Queue<DeadLetter>;
  LEDGERS: DurableObjectNamespace<TriggerLedger>;
  COORDINATORS: DurableObjectNamespace<FanOutCoordinator>;
  THROTTLES: DurableObjectNamespace<ThrottleObject>;
  DIGESTS: DurableObjectNamespace<DigestObject>;
  /** Where this deployment is reached from outside: tracking links point here. */
  PUBLIC_URL: string;
  /** Base64 AES-256 key for integration credentials and signed tracking links. */
  ENCRYPTION_KEY?: string;
  /** SHA-256 (hex) of the admin credential; comma-separated while an old one is phased out. Unset: the admin API refuses everyone. */
  ADMIN_KEY_HASH?: string;
  /** Trigger ledger shards (default 32); see docs/architecture.md before changing it. */
  LEDGER_SHARDS?: string;
  /** The shard count before the last change, asked too until its triggers expire. */
  LEDGER_SHARDS_PREVIOUS?: string;
  /** Milliseconds accepted jobs gather in a ledger's outbox before one sendBatch (default 20). */
  OUTBOX_FLUSH_MS?: string;
  /** Seconds without progress before a live trigger's unfinished work is enqueued again (default 120). */
  WATCHDOG_STALL_SECONDS?: string;
  /** Hours a finished trigger is remembered, for idempotent replays (default 24). */
  IDEMPOTENCY_WINDOW_HOURS?: string;
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
