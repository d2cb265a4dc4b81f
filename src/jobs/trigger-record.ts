import type { Json, JsonArray, JsonObject } from "../contract/json";

/** Everything a trigger needs to run, as accepted; a Queue message names it, never carries it. */
export interface TriggerRecord {
  environmentId: string;
  transactionId: string;
  workflowKey: string;
  /**
   * The workflow as accepted: the run reads it by id, so a delete (a tombstone) or a new workflow
   * under the same key does not change what an accepted trigger runs. Absent in older records.
   */
  workflowId?: string;
  /**
   * The workflow's version when accepted: every step, however late (a delay, a digest, a retry),
   * runs that version's content, not what was saved since. Absent in older records, and 0 for a
   * workflow saved before versions were kept: those read the workflow row.
   */
  workflowVersion?: number;
  /**
   * The environment's content stamp when accepted (db/schema/content-stamps.ts): its layouts and
   * partials render as they were then. Absent in older records, which render the current ones.
   */
  contentStamp?: number;
  recipients: JsonArray;
  payload: JsonObject;
  overrides: JsonObject | null;
  actor: Json;
  acceptedAt: number;
  /**
   * The environment's brand version (0: none saved), translations revision and default locale
   * when accepted: templates render with those, however late. Absent in older records: those read the current ones.
   */
  brandVersion?: number;
  translationsRevision?: number;
  defaultLocale?: string;
  /** Channel steps of the workflow when accepted: messages planned per recipient. */
  plannedSteps?: number;
  /**
   * The tenant the trigger is for. `name`/`data` only when it was given inline (an object): the
   * consumer upserts it before the run, as it does inline subscribers. Absent: no tenant.
   */
  tenant?: { id: string; name?: string; data?: JsonObject };
  /**
   * True for triggers accepted since the message log moved to the log shards: D1 holds none of
   * their messages, so delivery never reads D1 for them. Absent in older records.
   */
  messagesInLog?: boolean;
  /** Context keys besides the tenant (Novu's `context`), by key: the id given for each. Absent: none. */
  context?: Record<string, string>;
  /**
   * How many workflows started this one through `trigger_workflow` steps: 0 (or absent) for a
   * trigger accepted from the API, the parent's depth + 1 for a child. Bounds chains at run time.
   */
  depth?: number;
  /** The trigger whose `trigger_workflow` step started this one; absent for a trigger from the API. */
  parentTransactionId?: string;
}

/** Where a trigger is in its life, as its ledger keeps it. */
export type TriggerState = "accepted" | "cancelled" | "completed" | "failed";

/** What the consumer reads back for a trigger: the record, its state, and where its sends are coordinated. */
export interface TriggerSnapshot extends TriggerRecord {
  state: TriggerState;
  /** The ledger shard that holds the trigger (its Durable Object name). */
  ledger: string;
  /** True once a fan-out of more than one chunk handed the trigger's sends to its own coordinator. */
  coordinated: boolean;
}
