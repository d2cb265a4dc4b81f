const BASE_SECONDS = 2;
const MAX_SECONDS = 15 * 60;

/** Exponential backoff with full jitter for the Queue's retry delay; `retryAfter` wins when a provider names one. */
export function retryDelaySeconds(attempts: number, retryAfterSeconds?: number, random = Math.random): number {
  if (retryAfterSeconds !== undefined && retryAfterSeconds > 0) return Math.min(Math.ceil(retryAfterSeconds), MAX_SECONDS);
  const ceiling = Math.min(MAX_SECONDS, BASE_SECONDS * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}
