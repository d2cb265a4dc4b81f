import { maskOf, REASONED_STATUSES } from "../../../contract/message-figures";

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
export function snapshots(sql: SqlStorage, ids: ReadonlySet<string>): Map<string, Snapshot> {
  const found = new Map<string, Snapshot>();
  if (ids.size === 0) return found;
  for (const row of sql.exec<Snapshot>(SELECT, JSON.stringify([...ids]))) found.set(row.id, row);
  return found;
}
