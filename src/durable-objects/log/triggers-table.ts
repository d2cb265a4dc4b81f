// A log shard's trigger records: the queryable record of each trigger (what `GET /v1/trigger/{tx}`
// and `GET /v1/triggers` show), placed by trigger (log-naming.ts `triggerPartition`), so a read of
// one trigger touches one shard and a list fans out and merges by (acceptedAt, transactionId).
import type { Json, JsonArray, JsonObject } from "../../contract/json";
import { addColumnsMissingFrom } from "./added-columns";
import { compareCodePoints } from "../../lib/code-point-order";
import { jsonParts, PART_ROWS } from "../../lib/json-parts";

/** The record of one trigger as the log keeps it: times are epoch ms, JSON values as given. */
export interface LogTrigger {
  environmentId: string;
  transactionId: string;
  workflowKey: string;
  status: "accepted" | "processing" | "completed" | "cancelled" | "failed";
  recipients: JsonArray;
  payload: JsonObject;
  overrides: JsonObject | null;
  actor: Json;
  acceptedAt: number;
  /** Messages a `DELETE /v1/trigger/` stopped, as it answered. */
  cancelledMessages: number | null;
  /** The workflow version accepted with; null before versions were kept. */
  workflowVersion: number | null;
  /** The tenant and other context ids it was triggered with; null without (or before they were kept). */
  tenantId?: string | null;
  context?: Record<string, string> | null;
  createdAt: number;
  updatedAt: number;
}

export type TriggerKey = { environmentId: string; transactionId: string };

/** A page of triggers: newest first by (acceptedAt, transactionId), below the keyset `before`. */
export interface TriggerFilter {
  environmentId: string;
  workflowKey?: string;
  /** Only these (a transactionId asked for, or a subscriber's triggers). */
  transactionIds?: string[];
  status?: string;
  since?: number;
  until?: number;
  before?: [number, string];
  limit: number;
}

/**
 * `trigger_people`: the subscribers a trigger names with a profile (an inline recipient object, an
 * actor object), so an erasure finds the triggers that quote them without reading every record.
 * A trigger naming someone by id only holds nothing of theirs to redact.
 */
export const TRIGGERS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS triggers (
    env TEXT NOT NULL, tx TEXT NOT NULL, workflow TEXT NOT NULL, status TEXT NOT NULL, recipients TEXT NOT NULL,
    payload TEXT NOT NULL, overrides TEXT, actor TEXT, accepted_at INTEGER NOT NULL, cancelled_messages INTEGER,
    workflow_version INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, tenant TEXT, context TEXT,
    PRIMARY KEY (env, tx)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS triggers_env_accepted ON triggers (env, accepted_at, tx);
  CREATE INDEX IF NOT EXISTS triggers_env_workflow ON triggers (env, workflow, accepted_at);
  CREATE INDEX IF NOT EXISTS triggers_accepted ON triggers (accepted_at);
  CREATE TABLE IF NOT EXISTS trigger_people (
    env TEXT NOT NULL, subscriber TEXT NOT NULL, tx TEXT NOT NULL, PRIMARY KEY (env, subscriber, tx)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS trigger_people_tx ON trigger_people (env, tx);
`;

interface TriggerRecordRow extends Record<string, SqlStorageValue> {
  env: string;
  tx: string;
  workflow: string;
  status: string;
  recipients: string;
  payload: string;
  overrides: string | null;
  actor: string | null;
  accepted_at: number;
  cancelled_messages: number | null;
  workflow_version: number | null;
  tenant: string | null;
  context: string | null;
  created_at: number;
  updated_at: number;
}

const parsed = (text: string | null): Json => (text === null ? null : (JSON.parse(text) as Json));

const toTrigger = (r: TriggerRecordRow): LogTrigger => ({
  environmentId: r.env,
  transactionId: r.tx,
  workflowKey: r.workflow,
  status: r.status as LogTrigger["status"],
  recipients: parsed(r.recipients) as JsonArray,
  payload: parsed(r.payload) as JsonObject,
  overrides: parsed(r.overrides) as JsonObject | null,
  actor: parsed(r.actor),
  acceptedAt: r.accepted_at,
  cancelledMessages: r.cancelled_messages,
  workflowVersion: r.workflow_version,
  tenantId: r.tenant ?? null,
  context: r.context ? (JSON.parse(r.context) as Record<string, string>) : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** What a finished trigger is reported with (its `trigger.*` event). */
export type FinishedTrigger = Pick<
  LogTrigger,
  "environmentId" | "transactionId" | "workflowKey" | "status" | "acceptedAt" | "cancelledMessages" | "updatedAt"
>;
const FINISHED_COLUMNS = "env, tx, workflow, status, accepted_at, cancelled_messages, updated_at";
type FinishedRow = Pick<TriggerRecordRow, "env" | "tx" | "workflow" | "status" | "accepted_at" | "cancelled_messages" | "updated_at">;

/** The statuses a trigger never leaves. */
const TERMINAL = "('cancelled', 'completed', 'failed')";

/**
 * Inserted or updated. A terminal status is never replaced (a cancellation recorded by
 * `DELETE /v1/trigger/` wins whichever write lands last; a redelivered job cannot move a finished
 * trigger back), and a count of cancelled messages only by another one.
 */
const TRIGGER_COLUMNS = [
  "env",
  "tx",
  "workflow",
  "status",
  "recipients",
  "payload",
  "overrides",
  "actor",
  "accepted_at",
  "cancelled_messages",
  "workflow_version",
  "created_at",
  "updated_at",
  "tenant",
  "context",
] as const;
/**
 * A call's records in one statement: one JSON array of `triggerValues` rows, each key at most
 * once (`upsert` runs a key named again in a later round).
 */
const UPSERT = `${PART_ROWS} INSERT INTO triggers (${TRIGGER_COLUMNS.join(", ")})
  SELECT ${TRIGGER_COLUMNS.map((_, i) => `v ->> ${i}`).join(", ")} FROM part WHERE true
  ON CONFLICT (env, tx) DO UPDATE SET
    status = CASE WHEN triggers.status IN ${TERMINAL} THEN triggers.status ELSE excluded.status END,
    cancelled_messages = coalesce(excluded.cancelled_messages, triggers.cancelled_messages),
    updated_at = excluded.updated_at`;
const UPSERT_RETURNING = `${UPSERT} RETURNING *`;

/** A record's values in `TRIGGER_COLUMNS` order, as stored (JSON values as their text). */
const triggerValues = (t: LogTrigger): SqlStorageValue[] => [
  t.environmentId,
  t.transactionId,
  t.workflowKey,
  t.status,
  JSON.stringify(t.recipients ?? []),
  JSON.stringify(t.payload ?? {}),
  t.overrides === null ? null : JSON.stringify(t.overrides),
  t.actor === null ? null : JSON.stringify(t.actor),
  t.acceptedAt,
  t.cancelledMessages,
  t.workflowVersion,
  t.createdAt,
  t.updatedAt,
  t.tenantId ?? null,
  t.context ? JSON.stringify(t.context) : null,
];

const keyOf = (environmentId: string, transactionId: string) => JSON.stringify([environmentId, transactionId]);

/**
 * Rounds of records in which each key is at most once, a key's records in the order given: the
 * n-th record of a key goes in round n. Run in order, they leave each record as one statement
 * per record, in the call's order, did; each round answers its own rows by key (a statement's
 * RETURNING rows come in no set order).
 */
function rounds(rows: readonly LogTrigger[]): { rows: LogTrigger[]; at: number[] }[] {
  const seen = new Map<string, number>();
  const out: { rows: LogTrigger[]; at: number[] }[] = [];
  rows.forEach((t, i) => {
    const key = keyOf(t.environmentId, t.transactionId);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    out[n] ??= { rows: [], at: [] };
    out[n].rows.push(t);
    out[n].at.push(i);
  });
  return out;
}

/** The subscribers a recipient list and actor name with a profile. */
function peopleOf(t: LogTrigger): string[] {
  const named = (v: Json) =>
    typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { subscriberId?: unknown }).subscriberId === "string"
      ? [(v as { subscriberId: string }).subscriberId]
      : [];
  return [...new Set([...(Array.isArray(t.recipients) ? t.recipients.flatMap(named) : []), ...named(t.actor)])];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Columns added to `triggers` after shards were created with it; old rows read null. TRIGGERS_SCHEMA names them too, so a new shard runs no ALTER. */
const ADDED_TRIGGER_COLUMNS = [
  ["tenant", "TEXT"],
  ["context", "TEXT"],
] as const;

/** A subscriber's erasure in the triggers of ?3 (a JSON list) and those that quote them (trigger_people); `TriggersTable.erase`. */
const ERASE_SUBJECT_SET = `UPDATE triggers SET
  recipients = (SELECT json_group_array(CASE r.type WHEN 'object' THEN (CASE WHEN json_extract(r.value, '$.subscriberId') = ?2 THEN ?2 ELSE json(r.value) END) WHEN 'array' THEN json(r.value) ELSE r.value END) FROM json_each(triggers.recipients) AS r),
  actor = CASE WHEN json_type(actor) = 'object' THEN (CASE WHEN json_extract(actor, '$.subscriberId') = ?2 THEN json_quote(?2) ELSE actor END) ELSE actor END
  WHERE env = ?1 AND`;
const QUOTING = "(SELECT tx FROM trigger_people WHERE env = ?1 AND subscriber = ?2)";
const ERASE_SUBJECT = `${ERASE_SUBJECT_SET} (tx IN (SELECT value FROM json_each(?3)) OR tx IN ${QUOTING})`;
/** A later part of the list: the quoting triggers were redacted with the first. */
const ERASE_SUBJECT_MORE = `${ERASE_SUBJECT_SET} tx IN (SELECT value FROM json_each(?3)) AND tx NOT IN ${QUOTING}`;

/** Adds the columns of ADDED_TRIGGER_COLUMNS a shard's `triggers` table does not have yet (the shard's start). */
export function addMissingTriggerColumns(sql: SqlStorage): void {
  addColumnsMissingFrom(sql, "triggers", ADDED_TRIGGER_COLUMNS);
}

export class TriggersTable {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Records triggers (caller's transaction); answers each as left, or none unless `answer`. One
   * statement per table for the call (a part; a round when a key comes twice), rather than one per
   * record and one per person named: a bulk of records was most of its own call's statements.
   */
  upsert(rows: LogTrigger[], answer = true): LogTrigger[] {
    const left: LogTrigger[] = [];
    for (const round of rounds(rows)) {
      const stored = new Map<string, LogTrigger>();
      // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, one statement.
      for (const part of jsonParts(round.rows.map(triggerValues)))
        for (const r of this.sql.exec<TriggerRecordRow>(answer ? UPSERT_RETURNING : UPSERT, part))
          stored.set(keyOf(r.env, r.tx), toTrigger(r));
      round.rows.forEach((t, i) => {
        const row = stored.get(keyOf(t.environmentId, t.transactionId));
        if (row) left[round.at[i]!] = row;
      });
    }
    const people = rows.flatMap((t) => peopleOf(t).map((subscriber) => [t.environmentId, subscriber, t.transactionId]));
    for (const part of jsonParts(people))
      this.sql.exec(
        `${PART_ROWS} INSERT INTO trigger_people (env, subscriber, tx)
         SELECT v ->> 0, v ->> 1, v ->> 2 FROM part WHERE true ON CONFLICT DO NOTHING`,
        part,
      );
    return left.filter((t) => t !== undefined);
  }

  /**
   * Moves these triggers to `status` unless they have a terminal one; answers those this shard
   * holds, as left, in the order asked. Described without the request (payload, recipients): the
   * caller reports only these columns, and reading and sending each record was most of this call.
   */
  finish(keys: TriggerKey[], status: "completed" | "failed", now: number): FinishedTrigger[] {
    const found = new Map<string, FinishedTrigger>();
    for (const [environmentId, ofEnv] of Map.groupBy(keys, (k) => k.environmentId)) {
      // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, two statements, as before.
      for (const txs of jsonParts([...new Set(ofEnv.map((k) => k.transactionId))])) {
        this.sql.exec(
          `UPDATE triggers SET status = ?, updated_at = ? WHERE env = ? AND tx IN (SELECT value FROM json_each(?)) AND status NOT IN ${TERMINAL}`,
          status,
          now,
          environmentId,
          txs,
        );
        for (const r of this.sql.exec<FinishedRow>(
          `SELECT ${FINISHED_COLUMNS} FROM triggers WHERE env = ? AND tx IN (SELECT value FROM json_each(?))`,
          environmentId,
          txs,
        ))
          found.set(`${r.env}\n${r.tx}`, {
            environmentId: r.env,
            transactionId: r.tx,
            workflowKey: r.workflow,
            status: r.status as LogTrigger["status"],
            acceptedAt: r.accepted_at,
            cancelledMessages: r.cancelled_messages,
            updatedAt: r.updated_at,
          });
      }
    }
    return keys.flatMap((k) => found.get(`${k.environmentId}\n${k.transactionId}`) ?? []);
  }

  find(environmentId: string, transactionIds: string[]): LogTrigger[] {
    // A transactionId named twice is one trigger, as `IN` reads it.
    return jsonParts([...new Set(transactionIds)]).flatMap((part) =>
      this.sql
        .exec<TriggerRecordRow>("SELECT * FROM triggers WHERE env = ? AND tx IN (SELECT value FROM json_each(?))", environmentId, part)
        .toArray()
        .map(toTrigger),
    );
  }

  list(f: TriggerFilter): LogTrigger[] {
    const where = ["env = ?"];
    const values: SqlStorageValue[] = [f.environmentId];
    if (f.workflowKey !== undefined) {
      where.push("workflow = ?");
      values.push(f.workflowKey);
    }
    if (f.status !== undefined) {
      where.push("status = ?");
      values.push(f.status);
    }
    if (f.since !== undefined) {
      where.push("accepted_at >= ?");
      values.push(f.since);
    }
    if (f.until !== undefined) {
      where.push("accepted_at <= ?");
      values.push(f.until);
    }
    if (f.before) {
      where.push("(accepted_at < ? OR (accepted_at = ? AND tx < ?))");
      values.push(f.before[0], f.before[0], f.before[1]);
    }
    // Named transactionIds are bound in parts (lib/json-parts.ts): a page of each, merged. One part, one statement.
    const named = f.transactionIds === undefined ? [[]] : jsonParts([...new Set(f.transactionIds)]).map((txs) => [txs]);
    if (f.transactionIds !== undefined) where.push("tx IN (SELECT value FROM json_each(?))");
    const query = `SELECT * FROM triggers WHERE ${where.join(" AND ")} ORDER BY accepted_at DESC, tx DESC LIMIT ?`;
    const pages = named.map((txs) => this.sql.exec<TriggerRecordRow>(query, ...values, ...txs, f.limit).toArray());
    const rows =
      pages.length === 1
        ? pages[0]!
        : pages
            .flat()
            .sort((a, b) => b.accepted_at - a.accepted_at || compareCodePoints(b.tx, a.tx))
            .slice(0, f.limit);
    return rows.map(toTrigger);
  }

  /** The newest acceptance per workflow key: one seek each (max over the index's last column). */
  lastTriggered(environmentId: string, workflowKeys: string[]): { workflowKey: string; at: number }[] {
    return workflowKeys.flatMap((workflowKey) => {
      const [row] = this.sql
        .exec<{ at: number | null }>(
          "SELECT max(accepted_at) AS at FROM triggers WHERE env = ? AND workflow = ?",
          environmentId,
          workflowKey,
        )
        .toArray();
      return row?.at != null ? [{ workflowKey, at: row.at }] : [];
    });
  }

  /** Which of these (workflow key, deleted at) have an unfinished trigger accepted at or before then, as `<deleted at>:<key>`. */
  unfinished(environmentId: string, tombstones: [string, number][]): string[] {
    return tombstones.flatMap(([workflowKey, deletedAt]) =>
      this.sql
        .exec(
          "SELECT 1 FROM triggers WHERE env = ? AND workflow = ? AND accepted_at <= ? AND status IN ('accepted', 'processing') LIMIT 1",
          environmentId,
          workflowKey,
          deletedAt,
        )
        .toArray().length > 0
        ? [`${deletedAt}:${workflowKey}`]
        : [],
    );
  }

  /**
   * A subscriber's erasure: the triggers among `transactionIds` (their messages') and those that
   * quote them (trigger_people) keep only their subscriberId, in the recipients and as actor.
   * Nested CASEs: json_extract is only ever applied to an object (a bare id is not JSON text).
   */
  erase(environmentId: string, subscriberId: string, transactionIds: string[]): number {
    // The transactionIds in parts (lib/json-parts.ts), each distinct; the triggers that quote the
    // subscriber are redacted with the first part and left out of the others, so none counts twice.
    const parts = jsonParts([...new Set(transactionIds)]);
    let redacted = 0;
    for (const [i, txs] of (parts.length ? parts : ["[]"]).entries())
      redacted += this.sql.exec(i === 0 ? ERASE_SUBJECT : ERASE_SUBJECT_MORE, environmentId, subscriberId, txs).rowsWritten;
    this.sql.exec("DELETE FROM trigger_people WHERE env = ? AND subscriber = ?", environmentId, subscriberId);
    return redacted;
  }

  /**
   * Finished triggers accepted before `before`, up to `maxRows`, oldest first: archived (with a
   * bucket) as `<environment>/triggers/<yyyy-mm-dd>/<shard>.ndjson` by the day accepted, then
   * deleted; the part number moves on in the deleting transaction, as the messages' pass does.
   */
  async expire(
    storage: DurableObjectStorage,
    archive: R2Bucket | undefined,
    pass: { shard: string; before: number; maxRows: number },
  ): Promise<{ triggers: number; archived: number; more: boolean }> {
    const rows = this.sql
      .exec<TriggerRecordRow>(
        `SELECT * FROM triggers WHERE accepted_at < ? AND status IN ${TERMINAL} ORDER BY accepted_at, tx LIMIT ?`,
        pass.before,
        pass.maxRows,
      )
      .toArray();
    const files = new Map<string, string[]>();
    if (archive)
      for (const r of rows) {
        const key = `${r.env}/triggers/${day(r.accepted_at)}`;
        files.set(key, [...(files.get(key) ?? []), JSON.stringify(toTrigger(r))]);
      }
    const shard = pass.shard.replaceAll("/", "-");
    const parts = [...files].map(([prefix, lines]) => {
      const setting = `part:${prefix}`;
      const part = Number(this.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", setting).toArray()[0]?.value ?? 0);
      return { setting, part, key: `${prefix}/${part === 0 ? shard : `${shard}.${part}`}.ndjson`, body: `${lines.join("\n")}\n` };
    });
    if (archive) await Promise.all(parts.map((p) => archive.put(p.key, p.body, { httpMetadata: { contentType: "application/x-ndjson" } })));
    storage.transactionSync(() => {
      for (const r of rows) {
        this.sql.exec("DELETE FROM trigger_people WHERE env = ? AND tx = ?", r.env, r.tx);
        this.sql.exec("DELETE FROM triggers WHERE env = ? AND tx = ?", r.env, r.tx);
      }
      for (const p of parts)
        this.sql.exec(
          "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          p.setting,
          String(p.part + 1),
        );
    });
    return { triggers: rows.length, archived: archive ? rows.length : 0, more: rows.length === pass.maxRows };
  }
}
