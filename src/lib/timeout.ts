import { scoped } from "./invocation-scope";

/**
 * How long after a shared timer's start later calls may still join it. A call that joins at the
 * end of this window still gets its whole timeout; one that opened the window gets up to this
 * much more.
 */
export const TIMEOUT_JOIN_MS = 20;

interface SharedTimer {
  controller: AbortController;
  timer: ReturnType<typeof setTimeout>;
  opened: number;
  users: number;
}

/**
 * Per timeout length, the timer calls may still join: this invocation's (invocation-scope.ts). A
 * timer another invocation opened stops with it, leaving the calls that joined it no timeout.
 */
const TIMERS = Symbol("shared timeout timers");
const joinableTimers = () => scoped(TIMERS, () => new Map<number, SharedTimer>());

/**
 * An AbortSignal that fires no sooner than `ms` from now (a "TimeoutError", as
 * `AbortSignal.timeout`'s), and `done` to say the call is over.
 *
 * Calls of the same timeout that start within TIMEOUT_JOIN_MS of each other share one timer and
 * one signal, ended when the last of them is done. A fan-out starts thousands of provider calls a
 * second: a timer and an AbortController each were about 4 % of a 10,000-member topic's CPU
 * (`bench:profile -- --topic 10000`). And past 10,000 active timers in an isolate the runtime
 * refuses new ones, which `AbortSignal.timeout` (its timer stays active for the whole span) and a
 * timer per call both reach in a backlog (lib/connection-slots.ts).
 */
export function timeoutSignal(ms: number): { signal: AbortSignal; done: () => void } {
  const joinable = joinableTimers();
  const now = Date.now();
  let shared = joinable.get(ms);
  if (!shared || now - shared.opened >= TIMEOUT_JOIN_MS) shared = open(joinable, ms, now);
  const timer = shared;
  timer.users++;
  let ended = false;
  return {
    signal: timer.controller.signal,
    done: () => {
      if (ended) return;
      ended = true;
      timer.users--;
      if (timer.users > 0) return;
      clearTimeout(timer.timer);
      if (joinable.get(ms) === timer) joinable.delete(ms);
    },
  };
}

function open(joinable: Map<number, SharedTimer>, ms: number, now: number): SharedTimer {
  const controller = new AbortController();
  const shared: SharedTimer = { controller, opened: now, users: 0, timer: setTimeout(fire, ms + TIMEOUT_JOIN_MS) };
  function fire() {
    if (joinable.get(ms) === shared) joinable.delete(ms);
    controller.abort(new DOMException(`No answer within ${ms} ms.`, "TimeoutError"));
  }
  joinable.set(ms, shared);
  return shared;
}
