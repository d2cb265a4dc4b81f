import { scoped } from "../../lib/invocation-scope";

/**
 * Provider calls in flight at once in one invocation. Each call holds a connection while it waits,
 * and its timeout (a timer shared with the calls that started with it, lib/timeout.ts); a
 * consumer runs up to 100 chunks of 50 together, and the invocations of both delivery queues may
 * share an isolate. Past 10,000 active timers the runtime refuses new ones, and a send refused so
 * fails its whole chunk after its other sends went out (a chaos run's backlog after a restart hit
 * it, when each call had its own timer: those sends went out again once their claims lapsed).
 *
 * The slots are the invocation's (lib/invocation-scope.ts), not the isolate's: a call waiting for
 * a slot that another invocation's call frees hangs once its own invocation has nothing else
 * pending. Invocations sharing an isolate may so run 1,000 calls each; their timers stay far
 * under the runtime's limit, as an invocation's calls of one timeout share one timer per 20 ms
 * (at most 500 over a 10 s timeout).
 */
export const PROVIDER_CALLS_IN_FLIGHT = 1_000;

const SLOTS = Symbol("provider call slots");
const slots = () => scoped(SLOTS, () => ({ inFlight: 0, waiting: [] as (() => void)[] }));

/** Runs `call` once fewer than PROVIDER_CALLS_IN_FLIGHT others of this invocation are running; a freed slot goes to the longest waiting. */
export async function withCallSlot<T>(call: () => Promise<T>): Promise<T> {
  const own = slots();
  if (own.inFlight < PROVIDER_CALLS_IN_FLIGHT) own.inFlight++;
  else await new Promise<void>((resolve) => own.waiting.push(resolve));
  try {
    return await call();
  } finally {
    const next = own.waiting.shift();
    // The slot passes to the next caller as is; with nobody waiting it is freed.
    if (next) next();
    else own.inFlight--;
  }
}

/** This invocation's calls running and waiting now (for tests). */
export const callSlots = () => {
  const own = slots();
  return { inFlight: own.inFlight, waiting: own.waiting.length };
};
