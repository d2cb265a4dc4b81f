import type { DeliveryJob } from "./job";

/**
 * The delivery queues are the bindings DELIVERY_QUEUE_0, DELIVERY_QUEUE_1, … with no gap:
 * wrangler.toml binds two, `npm run deploy -- --delivery-queues N` binds N (one queue takes
 * about 5,000 messages/s and 250 consumers at once, docs/architecture.md "More queues").
 * Only the first is typed: env.ts names two, a deployment may have more, and jobs/ needs
 * nothing of env.ts, which names jobs/.
 */
type DeliveryQueues = { DELIVERY_QUEUE_0: Queue<DeliveryJob> };

/** The bindings found, per bindings object: an isolate keeps one `env` for its life. */
const found = new WeakMap<object, readonly Queue<DeliveryJob>[]>();

const isQueue = (value: unknown): value is Queue<DeliveryJob> =>
  typeof value === "object" && value !== null && typeof Reflect.get(value, "sendBatch") === "function";

/** Every delivery queue this deployment binds, in their numbers' order. */
export function deliveryQueues(env: DeliveryQueues): readonly Queue<DeliveryJob>[] {
  let queues = found.get(env);
  if (queues) return queues;
  const list: Queue<DeliveryJob>[] = [env.DELIVERY_QUEUE_0];
  for (let n = 1; ; n++) {
    const binding: unknown = Reflect.get(env, `DELIVERY_QUEUE_${n}`);
    if (!isQueue(binding)) break;
    list.push(binding);
  }
  queues = list;
  found.set(env, queues);
  return queues;
}

/**
 * FNV-1a over the key's UTF-16 units: every character moves the low bits, so `mod N` spreads
 * keys evenly for any N (a 31-multiplier hash is even only in its lowest bit).
 */
export function spreadHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The queue a trigger's (or an environment's) jobs go to. Which one only spreads load: any
 * consumer takes any job, because a job names its trigger, so changing the number of queues
 * is safe while jobs are in flight (they are consumed where they are).
 */
export function deliveryQueueFor(env: DeliveryQueues, key: string): Queue<DeliveryJob> {
  const queues = deliveryQueues(env);
  return queues.length === 1 ? queues[0]! : queues[spreadHash(key) % queues.length]!;
}
