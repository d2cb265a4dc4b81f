import type { TriggerHome } from "../../durable-objects/client/batched-homes";
import { CLAIM_RENEW_MS } from "../../durable-objects/ledger/claims";

/**
 * The claims a consumer invocation holds while their sends go on, kept alive together: every
 * `everyMs` each held step's home object restarts their deadline (the calls of one tick merge
 * into one per object, batched-homes.ts). One timer serves the whole invocation, running only
 * while something is held: a timer per chunk cost more than the renewals (a bulk batch holds
 * hundreds of one-recipient chunks at once).
 *
 * A consumer that dies stops renewing, and its claims are granted again a deadline later, as
 * before; a live one, however slow its providers or its machine, keeps them until it reports. A
 * renewal that fails is only logged: the next may still come in time, the deadline being three
 * renewals long.
 */
export class ClaimLeases {
  private readonly held = new Map<symbol, { home: TriggerHome; keys: string[] }>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs = CLAIM_RENEW_MS) {}

  /** Holds a step's granted claims from now; call the answer once the object heard their report. */
  hold(home: TriggerHome, keys: string[]): () => void {
    if (keys.length === 0) return () => {};
    const lease = Symbol("lease");
    this.held.set(lease, { home, keys });
    this.timer ??= setInterval(() => this.renew(), this.everyMs);
    return () => {
      this.held.delete(lease);
      if (this.held.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private renew(): void {
    for (const { home, keys } of this.held.values())
      home.renew(keys).catch((error: unknown) => {
        console.log(JSON.stringify({ level: "warn", event: "claim_renewal_failed", keys: keys.length, error: String(error) }));
      });
  }
}
