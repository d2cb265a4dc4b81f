// How many delivery queues a deployment binds (`--delivery-queues N`, docs/architecture.md "More
// queues"). One queue takes about 5,000 messages/s and runs at most 250 consumer invocations at
// once, each waiting on at most 6 provider calls: more queues, more sends in flight. The Worker
// finds DELIVERY_QUEUE_0 … DELIVERY_QUEUE_{N-1} itself (src/jobs/queues.ts); this writes them.

/** wrangler.toml's delivery queue bindings; the first is the template of the others. */
const PRODUCER = /^\[\[queues\.producers\]\]\nbinding = "DELIVERY_QUEUE_(\d+)"\nqueue = "([^"]+)"\n/gm;
const CONSUMER = /^\[\[queues\.consumers\]\]\nqueue = "([^"]+)"\n(?:[a-z_]+ = .*\n)*/gm;
/** A Worker binds at most this many here: 100 queues carry 500,000 messages/s, beyond any model in the docs. */
export const MAX_DELIVERY_QUEUES = 100;

/**
 * The number of a delivery queue's name (`clarion-delivery-3` → 3, with `prefix` "clarion-delivery-"),
 * or null for any other queue (the dead-letter queue `clarion-delivery-dlq` among them).
 * @param {string} prefix
 * @param {string} queue
 */
export function deliveryQueueNumber(prefix, queue) {
  const rest = queue.startsWith(prefix) ? queue.slice(prefix.length) : "";
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

/**
 * The number `--delivery-queues` (or the state file) gives, checked.
 * @param {string | number} value
 */
export function parseDeliveryQueues(value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DELIVERY_QUEUES) {
    throw new Error(`--delivery-queues takes a whole number from 1 to ${MAX_DELIVERY_QUEUES} (got "${value}")`);
  }
  return n;
}

/**
 * The delivery queues wrangler.toml binds: their count and the first one's blocks, which every
 * other queue copies (same batch size, wait, retries and dead-letter queue).
 * @param {string} toml
 */
export function deliveryQueuesOf(toml) {
  const producers = [...toml.matchAll(PRODUCER)];
  const first = producers.find((m) => m[1] === "0");
  if (!first) throw new Error('wrangler.toml has no [[queues.producers]] block binding "DELIVERY_QUEUE_0" to copy');
  const queue = /** @type {string} */ (first[2]);
  if (!queue.endsWith("-0"))
    throw new Error(`DELIVERY_QUEUE_0's queue "${queue}" does not end in -0, so the others cannot be named after it`);
  const consumer = [...toml.matchAll(CONSUMER)].find((m) => m[1] === queue);
  if (!consumer) throw new Error(`wrangler.toml has no [[queues.consumers]] block for "${queue}" to copy`);
  return { count: producers.length, prefix: queue.slice(0, -1), producer: first[0], consumer: consumer[0] };
}

/**
 * wrangler.toml with `produced` delivery queues bound for sending and `consumed` (at least as
 * many) consumed. A deployment that goes down to fewer queues keeps consuming the ones it
 * stopped sending to: jobs still in them are delivered, and an empty queue costs nothing.
 * @param {string} toml
 * @param {{ produced: number, consumed: number }} counts
 */
export function withDeliveryQueues(toml, { produced, consumed }) {
  const { prefix, producer, consumer } = deliveryQueuesOf(toml);
  const name = (/** @type {number} */ n) => `${prefix}${n}`;
  const producers = Array.from({ length: produced }, (_, n) =>
    producer.replace(/"DELIVERY_QUEUE_0"/, `"DELIVERY_QUEUE_${n}"`).replace(`"${name(0)}"`, `"${name(n)}"`),
  );
  const consumers = Array.from({ length: Math.max(produced, consumed) }, (_, n) => consumer.replace(`"${name(0)}"`, `"${name(n)}"`));
  // The first block of each kind stands where wrangler.toml has it, now holding all of them;
  // the others wrangler.toml wrote are dropped (they are among the copies).
  return toml
    .replace(PRODUCER, (_block, n) => (n === "0" ? producers.join("\n") : ""))
    .replace(CONSUMER, (block, queue) =>
      deliveryQueueNumber(prefix, queue) === null ? block : queue === name(0) ? consumers.join("\n") : "",
    )
    .replace(/\n{3,}/g, "\n\n");
}
