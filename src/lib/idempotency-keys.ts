// What an idempotency key is and what a claim on it can find; the statements that store them are
// in db/queries/idempotency.ts.

/**
 * A claim left in flight this long is taken to belong to a request that died (an evicted isolate):
 * a retry with the same request may take it over instead of getting 409 for a whole day.
 */
export const IN_FLIGHT_LEASE_MS = 60_000;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a claim found: the key is ours to run, or someone else's row as it stands. */
export type Claim = { kind: "claimed" } | { kind: "mismatch" } | { kind: "in_flight" } | { kind: "replay"; answer: StoredAnswer };

export interface KeyRef {
  scope: string;
  key: string;
  fingerprint: string;
}

/** The scope of an environment's keys (the admin API's is `admin`). */
export const environmentKeyScope = (environmentId: string) => `env:${environmentId}`;
