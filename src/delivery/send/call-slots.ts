/**
 * Provider calls in flight at once in one isolate. Each call holds a connection while it waits,
 * and its timeout (a timer shared with the calls that started with it, lib/timeout.ts); a
 * consumer runs up to 100 chunks of 50 together, and the invocations of both delivery queues may
 * share an isolate. Past 10,000 active timers the runtime refuses new ones, and a send refused so
 * fails its whole chunk after its other sends went out (a chaos run's backlog after a restart hit
 * it, when each call had its own timer: those sends went out again once their claims lapsed).
 */
export const PROVIDER_CALLS_IN_FLIGHT = 1_000;

let inFlight = 0;
const waiting: (() => void)[] = [];

/** Runs `call` once fewer than PROVIDER_CALLS_IN_FLIGHT others are running; a freed slot goes to the longest waiting. */
export async function withCallSlot<T>(call: () => Promise<T>): Promise<T> {
  if (inFlight < PROVIDER_CALLS_IN_FLIGHT) inFlight++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await call();
  } finally {
    const next = waiting.shift();
    // The slot passes to the next caller as is; with nobody waiting it is freed.
    if (next) next();
    else inFlight--;
  }
}

/** Calls running and waiting now (for tests). */
export const callSlots = () => ({ inFlight, waiting: waiting.length });
