import type { TriggerStore } from "../client/trigger-store";
import type { LedgerTimings } from "../settings";
import type { DeliveryState } from "./delivery-state";
import type { Outbox } from "./outbox";
import type { TriggersTable } from "./triggers-table";

/** What each concern of a ledger shard works with: its tables, its outbox, and the objects it asks. */
export interface LedgerParts {
  readonly triggers: TriggersTable;
  readonly delivery: DeliveryState;
  readonly outbox: Outbox;
  readonly storage: DurableObjectStorage;
  /** Coordinators and digests, for the triggers that reach beyond the shard. */
  readonly store: TriggerStore;
  readonly timings: LedgerTimings;
}
