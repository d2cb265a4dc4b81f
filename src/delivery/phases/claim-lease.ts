import type { TriggerHome } from "../../durable-objects/client/batched-homes";
import { CLAIM_RENEW_MS } from "../../durable-objects/ledger/claims";

/** Claims kept alive while their sends go on; `release` once the object heard the report. */
export interface ClaimLease {
  release(): void;
}

/**
 * Keeps a step's granted claims held while this consumer is alive: every `everyMs` the home
 * object restarts their deadline. A consumer that dies stops renewing, and its claims are
 * granted again a deadline later, as before; a live one, however slow its providers or its
 * machine, keeps them until it reports. A renewal that fails is only logged: the next one may
 * still come in time, and the deadline is three renewals long.
 */
export function holdClaims(home: TriggerHome, keys: string[], everyMs = CLAIM_RENEW_MS): ClaimLease {
  if (keys.length === 0) return { release: () => {} };
  const timer = setInterval(() => {
    home.renew(keys).catch((error: unknown) => {
      console.log(JSON.stringify({ level: "warn", event: "claim_renewal_failed", keys: keys.length, error: String(error) }));
    });
  }, everyMs);
  return { release: () => clearInterval(timer) };
}
