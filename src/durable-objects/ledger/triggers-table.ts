import type { TriggerRecord, TriggerState } from "../../jobs/trigger-record";
import { jsonParts } from "../../lib/json-parts";

export const TRIGGERS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS triggers (
    env TEXT NOT NULL, tx TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL, record TEXT NOT NULL,
    accepted_at INTEGER NOT NULL, enqueued_at INTEGER, cancelled_at INTEGER, finished_at INTEGER,
    check_at INTEGER NOT NULL, hold_until INTEGER, chunks TEXT, coordinated INTEGER NOT NULL DEFAULT 0, digests TEXT,
    PRIMARY KEY (env, tx)
  );
  CREATE INDEX IF NOT EXISTS triggers_live ON triggers (state, check_at);
  CREATE INDEX IF NOT EXISTS triggers_finished ON triggers (finished_at);
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

export interface TriggerRow {
  env: string;
  tx: string;
  fingerprint: string;
  state: TriggerState;
  record: string;
  /** When the watchdog looks at the trigger next: the stall window after its last progress, or the end of a hold. */
  check_at: number;
  hold_until: number | null;
  chunks: string | null;
  coordinated: number;
  digests: string | null;
}

/** What delivery's bookkeeping reads of a trigger: not its record (the request, often the largest column) or fingerprint. */
const PROGRESS_COLUMNS = [
  "env",
  "tx",
  "state",
  "check_at",
  "hold_until",
  "chunks",
  "coordinated",
  "digests",
] as const satisfies readonly (keyof TriggerRow)[];
/** A trigger as `progress()` reads it, typed from the columns read: a caller cannot use one that is not. */
export type TriggerProgress = Pick<TriggerRow, (typeof PROGRESS_COLUMNS)[number]>;
const PROGRESS_SELECT = `SELECT ${PROGRESS_COLUMNS.join(", ")} FROM triggers WHERE env = ? AND tx = ?`;
const PROGRESS_OF = `SELECT ${PROGRESS_COLUMNS.map((c) => `t.${c}`).join(", ")} FROM jsonb_each(?) AS k
  JOIN triggers AS t ON t.env = k.value ->> 0 AND t.tx = k.value ->> 1`;

/** Triggers' keys as `[env, tx]` rows of JSON parts (none for none). */
const keyParts = (keys: readonly { environmentId: string; transactionId: string }[]) =>
  jsonParts(keys.map((k) => [k.environmentId, k.transactionId]));

/** The shard's triggers table: the reads and small writes every concern of the ledger shares. */
export class TriggersTable {
  constructor(private readonly sql: SqlStorage) {}

  row(env: string, tx: string): TriggerRow | undefined {
    return this.sql
      .exec<TriggerRow & Record<string, SqlStorageValue>>("SELECT * FROM triggers WHERE env = ? AND tx = ?", env, tx)
      .toArray()[0];
  }

  /**
   * The trigger without its record. Delivery reads one per operation of a phase (`run`, and
   * again to see whether it completed): with `SELECT *`, copying the record out of SQLite for
   * each was 5 % of the CPU in a profile of 2,000 single triggers' delivery.
   */
  progress(env: string, tx: string): TriggerProgress | undefined {
    return this.sql.exec<TriggerProgress & Record<string, SqlStorageValue>>(PROGRESS_SELECT, env, tx).toArray()[0];
  }

  /**
   * `progress()` of many triggers in one statement, by `env\u0000tx` (absent: not held). A
   * consumer phase's call carries ops of many triggers: a read per op was the ledger's top cost.
   */
  progressOf(keys: readonly { environmentId: string; transactionId: string }[]): Map<string, TriggerProgress> {
    const found = new Map<string, TriggerProgress>();
    // Keys bound in parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, one statement.
    for (const part of keyParts(keys))
      for (const row of this.sql.exec<TriggerProgress & Record<string, SqlStorageValue>>(PROGRESS_OF, part))
        found.set(triggerKey(row.env, row.tx), row);
    return found;
  }

  /** What a snapshot reads of each trigger held of these (its record, state and home), by `triggerKey`, in one statement. */
  recordsOf(
    keys: readonly { environmentId: string; transactionId: string }[],
  ): Map<string, Pick<TriggerRow, "state" | "record" | "coordinated">> {
    const found = new Map<string, Pick<TriggerRow, "state" | "record" | "coordinated">>();
    for (const part of keyParts(keys))
      for (const row of this.sql.exec<Pick<TriggerRow, "env" | "tx" | "state" | "record" | "coordinated">>(
        `SELECT t.env, t.tx, t.state, t.record, t.coordinated FROM jsonb_each(?) AS k
         JOIN triggers AS t ON t.env = k.value ->> 0 AND t.tx = k.value ->> 1`,
        part,
      ))
        found.set(triggerKey(row.env, row.tx), row);
    return found;
  }

  /** Triggers that showed progress: the watchdog looks at them again after `checkAt` (or the end of their hold), in one statement. */
  progressed(rows: readonly Pick<TriggerRow, "env" | "tx">[], checkAt: number) {
    for (const part of jsonParts(rows.map((r) => [r.env, r.tx])))
      this.sql.exec(
        `UPDATE triggers SET check_at = max(?, coalesce(hold_until, 0))
         WHERE (env, tx) IN (SELECT value ->> 0, value ->> 1 FROM jsonb_each(?))`,
        checkAt,
        part,
      );
  }

  /** The fingerprints of the triggers held of these, by `triggerKey` (absent: not held), in one statement. */
  fingerprintsOf(keys: readonly { environmentId: string; transactionId: string }[]): Map<string, string> {
    const found = new Map<string, string>();
    for (const part of keyParts(keys))
      for (const row of this.sql.exec<{ env: string; tx: string; fingerprint: string }>(
        `SELECT t.env, t.tx, t.fingerprint FROM jsonb_each(?) AS k
         JOIN triggers AS t ON t.env = k.value ->> 0 AND t.tx = k.value ->> 1`,
        part,
      ))
        found.set(triggerKey(row.env, row.tx), row.fingerprint);
    return found;
  }

  /** Read once it is stored: it never changes (a read per snapshot call was 0.4 % of delivery's CPU). */
  private knownName = "";

  /** The shard's own name (`v1/<count>/<shard>`), stored by its first accept. */
  get name(): string {
    this.knownName ||= this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'name'").toArray()[0]?.value ?? "";
    return this.knownName;
  }

  nameOnce(name: string) {
    this.sql.exec("INSERT OR IGNORE INTO meta (key, value) VALUES ('name', ?)", name);
  }

  /** A trigger resting in a digest (or similar) until about `until`: the watchdog leaves it alone till then. */
  hold(row: Pick<TriggerRow, "env" | "tx" | "digests">, until: number, digest: string | undefined) {
    const digests = new Set(digestsOf(row));
    if (digest) digests.add(digest);
    this.sql.exec(
      "UPDATE triggers SET hold_until = max(coalesce(hold_until, 0), ?), check_at = max(check_at, ?), digests = ? WHERE env = ? AND tx = ?",
      until,
      until,
      JSON.stringify([...digests]),
      row.env,
      row.tx,
    );
  }

  completed(env: string, tx: string, now: number) {
    this.sql.exec("UPDATE triggers SET state = 'completed', finished_at = ? WHERE env = ? AND tx = ?", now, env, tx);
  }
}

/** A trigger's key in the maps a call builds: environment and transactionId, apart. */
export const triggerKey = (env: string, tx: string) => `${env}\u0000${tx}`;

export const digestsOf = (row: Pick<TriggerRow, "digests">): string[] => (row.digests ? (JSON.parse(row.digests) as string[]) : []);

export const chunksOf = (row: Pick<TriggerRow, "chunks">): string[][] | null =>
  row.chunks ? (JSON.parse(row.chunks) as string[][]) : null;

export const recordOf = (row: Pick<TriggerRow, "record">) => JSON.parse(row.record) as TriggerRecord;

/** Recipients named directly in `to` (topics are counted once they are resolved). */
export const namedRecipients = (record: TriggerRecord) =>
  record.recipients.filter((r) => typeof r === "string" || (typeof r === "object" && r !== null && "subscriberId" in r)).length;
