import { type DestinationOptions, STRICT_DESTINATIONS } from "../lib/destinations";

/**
 * The destination policy of one send or check, found from the AbortSignal every adapter already
 * passes to the shared fetch: adapters need no new parameter, and a signal nobody registered
 * (a forgotten code path) gets the strict policy.
 */
const bySignal = new WeakMap<AbortSignal, DestinationOptions>();
let fallback: DestinationOptions = STRICT_DESTINATIONS;

/** A timeout signal whose requests follow `options`. */
export function destinationSignal(timeoutMs: number, options: DestinationOptions): AbortSignal {
  const signal = AbortSignal.timeout(timeoutMs);
  bySignal.set(signal, options);
  return signal;
}

export const destinationOptionsFor = (signal: AbortSignal): DestinationOptions => bySignal.get(signal) ?? fallback;

/** For test harnesses that call adapters directly against local servers (the Node conformance suite). */
export function setFallbackDestinations(options: DestinationOptions): void {
  fallback = options;
}
