import { maskOf, REASONED_STATUSES } from "../../../contract/message-figures";
import { jsonParts } from "../../../lib/json-parts";
import { bitOf, MESSAGE_COLUMN_LIST, type MessageRow, stored } from "../records";
import type { MessageChanges } from "../rows";

/** What the rollups read of a message, before and after a write changes it. */
export interface Snapshot extends Record<string, SqlStorageValue> {
  id: string;
  env: string;
  tx: string;
  subscriber: string;
  workflow: string;
  step: string;
  channel: string;
  provider: string | null;
  tenant: string | null;
  status: string;
  states: number;
  error_code: string | null;
  error_message: string | null;
  /**
   * Why it ended without a send: a failure's error code, or else the `reason` its last
   * skipped/cancelled/failed event gives (a skip keeps its reason only on its timeline).
   */
  reason: string | null;
  created_at: number;
}

const REASONED = maskOf(REASONED_STATUSES);
const ENDINGS = REASONED_STATUSES.map((s) => `'${s}'`).join(", ");
// The event is read only for a message that reached one of those states (CASE evaluates lazily).
const COLUMNS = `id, env, tx, subscriber, workflow, step, channel, provider, tenant, status, states, error_code, error_message, created_at,
  CASE WHEN states & ${REASONED} THEN coalesce(error_code, (SELECT json_extract(e.detail, '$.reason') FROM message_events e
    WHERE e.message_id = messages.id AND e.status IN (${ENDINGS}) ORDER BY e.at DESC, e.id DESC LIMIT 1)) END AS reason`;
/** All of a write's messages in one statement: a statement per message was most of the rollups' CPU. */
const SELECT = `SELECT ${COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`;

/** These messages as stored now, by id (absent: not stored). */
export function snapshots(sql: SqlStorage, ids: Iterable<string>): Map<string, Snapshot> {
  const found = new Map<string, Snapshot>();
  // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, one statement.
  for (const part of jsonParts([...ids])) for (const row of sql.exec<Snapshot>(SELECT, part)) found.set(row.id, row);
  return found;
}

/** Where each column is in a `messageValues` row. */
const AT = Object.fromEntries(MESSAGE_COLUMN_LIST.map((c, i) => [c, i])) as Record<(typeof MESSAGE_COLUMN_LIST)[number], number>;

/**
 * A message just inserted, as its row (`messageValues`, the values the insert wrote) stores it,
 * without reading it back. Its `reason` is left to `changedSnapshot`, which every snapshot made
 * here goes through.
 */
export function insertedSnapshot(row: Readonly<MessageRow>): Snapshot {
  const v = (c: (typeof MESSAGE_COLUMN_LIST)[number]) => row[AT[c]] ?? null;
  return {
    id: v("id"),
    env: v("env"),
    tx: v("tx"),
    subscriber: v("subscriber"),
    workflow: v("workflow"),
    step: v("step"),
    channel: v("channel"),
    provider: v("provider"),
    tenant: v("tenant"),
    status: v("status"),
    states: v("states"),
    error_code: v("error_code"),
    error_message: v("error_message"),
    created_at: v("created_at"),
    reason: null,
  } as Snapshot;
}

/**
 * A stored message after a write's changes (in order) and timeline entries (their states' bits),
 * from how it was, as the statements leave it; null when the result reached a state with a reason
 * (`reason` may come from the timeline: read it back).
 */
export function changedSnapshot(base: Snapshot, changes: readonly MessageChanges[], eventBits: number): Snapshot | null {
  const s: Snapshot = { ...base };
  for (const c of changes) {
    if (c.status !== undefined) {
      s.status = stored(c.status) as string;
      // As the statement does: a new status is a state reached.
      if (c.status) s.states |= bitOf(c.status);
    }
    if (c.provider !== undefined) s.provider = stored(c.provider) as string | null;
    if (c.errorCode !== undefined) s.error_code = stored(c.errorCode) as string | null;
    if (c.errorMessage !== undefined) s.error_message = stored(c.errorMessage) as string | null;
  }
  s.states |= eventBits;
  if (s.states & REASONED) return null;
  s.reason = null;
  return s;
}
