/**
 * An AbortSignal that fires after `ms` (a "TimeoutError", as `AbortSignal.timeout`'s), and `done`
 * to end its timer once the call is over. `AbortSignal.timeout` keeps its timer active for the
 * whole span whatever happens, and past 10,000 active timers in an isolate the runtime refuses new
 * ones: a fan-out's provider calls, or a workflow's HTTP step per recipient, reach that within one
 * timeout.
 */
export function timeoutSignal(ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`No answer within ${ms} ms.`, "TimeoutError")), ms);
  return { signal: controller.signal, done: () => clearTimeout(timer) };
}
