// The tests bind three delivery queues (vitest.config.ts); a test that holds or loses what the
// Worker enqueues must stand in for every one of them, or a third of its jobs go to a real queue.

/** `bindings` with each delivery queue it binds (DELIVERY_QUEUE_0, _1, …) replaced by `queue`. */
export function withEveryDeliveryQueue<B extends object>(bindings: B, queue: object): B {
  const copy = { ...bindings };
  for (const name of Object.keys(copy)) if (/^DELIVERY_QUEUE_\d+$/.test(name)) Reflect.set(copy, name, queue);
  return copy;
}
