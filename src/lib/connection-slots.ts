import { scoped } from "./invocation-scope";
import { timeoutSignal } from "./timeout";

/**
 * Outbound calls one invocation has waiting for an answer at once: six, the platform's limit.
 * An invocation may wait for the response headers of at most six connections at a time **[CF]**;
 * a seventh fetch waits in the runtime's own queue until one answers. A call's timeout starts
 * before its fetch, so in that queue it ran while nothing was sent: with a thousand provider
 * calls of a fan-out started together, those behind the first few hundred ran out of time
 * unsent, and a timeout is an unknown outcome, which fails the message rather than risk a
 * duplicate (delivery/send/send-message.ts). Taken here first, a call starts its timer only once
 * it has a connection, and the runtime never queues it.
 *
 * Provider sends, fetch steps and event webhooks take one per request through `timedCall`; the
 * sandbox providers, which answer in the isolate, take none. Locally the runtime has no such limit, so the six also
 * bound what a local run sends at once.
 *
 * The slots are the invocation's (lib/invocation-scope.ts), not the isolate's: a call waiting for
 * a slot that another invocation's call frees hangs once its own invocation has nothing else
 * pending. Their timers stay few too: calls of one timeout that start within 20 ms share one
 * (lib/timeout.ts), and past 10,000 active timers the runtime refuses new ones.
 */
export const CONNECTIONS_PER_INVOCATION = 6;

const SLOTS = Symbol("outbound connection slots");
const slots = () => scoped(SLOTS, () => ({ inFlight: 0, waiting: [] as (() => void)[] }));

/** Runs `call` once fewer than CONNECTIONS_PER_INVOCATION others of this invocation are running; a freed slot goes to the longest waiting. */
export async function withConnection<T>(call: () => Promise<T>): Promise<T> {
  const own = slots();
  if (own.inFlight < CONNECTIONS_PER_INVOCATION) own.inFlight++;
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
export const connectionSlots = () => {
  const own = slots();
  return { inFlight: own.inFlight, waiting: own.waiting.length };
};

/**
 * Runs `call` with a timeout of `ms` that starts once the call has one of the invocation's
 * connections (at once for a call that opens none: `opensConnection` false) and ends with it.
 * The one way an outbound call gets its timer, so that no caller can start it in the queue.
 */
export function timedCall<T>(ms: number, call: (signal: AbortSignal) => Promise<T>, opensConnection = true): Promise<T> {
  const run = async () => {
    // Its timer ends with the call (lib/timeout.ts: a backlog's sends ran out of timers otherwise).
    const timeout = timeoutSignal(ms);
    try {
      return await call(timeout.signal);
    } finally {
      timeout.done();
    }
  };
  return opensConnection ? withConnection(run) : run();
}
