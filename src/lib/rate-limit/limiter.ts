/** A rate: at most `limit` requests per `period` seconds. The Rate Limiting binding takes 10 or 60. */
export interface Rate {
  limit: number;
  period: 10 | 60;
}

/** One counter: what it limits (for the headers) and the identifier it counts under. */
export interface Rule {
  /** `environment`, `key` or `auth_failures`: the policy name sent in `RateLimit-Policy`. */
  name: string;
  identifier: string;
  rate: Rate;
}

export interface Decision {
  success: boolean;
  /** Left in the window, when the backend knows it (Upstash does, the binding does not). */
  remaining?: number;
  /** Seconds until the window frees a request (the whole period when the backend cannot tell). */
  resetSeconds: number;
}

/**
 * Counts one request against a rule. Two implementations: the Workers Rate Limiting binding
 * (per Cloudflare location, approximate, no round trip) and Upstash (global, exact, one round trip).
 */
export interface RateLimiter {
  readonly backend: "binding" | "upstash";
  /** Whether its counts hold across isolates and locations (Upstash); if not, it is asked once per request at most (local-admission.ts). */
  readonly exact: boolean;
  limit(rule: Rule): Promise<Decision>;
}
