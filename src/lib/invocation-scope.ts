import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What one invocation (a request, a Queue batch) keeps to itself of helpers that would otherwise
 * be shared by the whole isolate: the outbound connection slots (connection-slots.ts) and the
 * shared timeout timers (timeout.ts).
 *
 * Why: the runtime runs several invocations in one isolate, but a promise an invocation awaits
 * must be settled by that invocation's own work. One that waited for a call slot that only
 * another invocation's calls would free had nothing of its own pending, and the runtime ended it
 * ("Promise will never complete": in a chaos run, a Queue batch hung for 69 s and its chunk's
 * chat sends went out again once their claims lapsed). A timer another invocation opened stops
 * with that invocation, leaving the calls that joined it without a timeout.
 */
const storage = new AsyncLocalStorage<Map<symbol, unknown>>();
/** Outside any invocation's scope (a test calling a function directly): one for the isolate. */
const isolateScope = new Map<symbol, unknown>();

/** Runs `run` in a scope of its own: what `scoped` makes inside it is this invocation's. */
export function inInvocationScope<T>(run: () => T): T {
  return storage.run(new Map(), run);
}

/** The current invocation's value under `key`, made by `make` the first time it is asked for. */
export function scoped<T>(key: symbol, make: () => T): T {
  const scope = storage.getStore() ?? isolateScope;
  if (!scope.has(key)) scope.set(key, make());
  return scope.get(key) as T;
}
