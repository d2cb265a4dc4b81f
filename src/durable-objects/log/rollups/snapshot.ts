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

/** These messages as stored now, by id (absent: not stored). */
export function snapshots(sql: SqlStorage, ids: Iterable<string>): Map<string, Snapshot> {
  const found = new Map<string, Snapshot>();
  for (const id of ids) {
    const [row] = sql.exec<Snapshot>(`SELECT ${COLUMNS} FROM messages WHERE id = ?`, id).toArray();
    if (row) found.set(id, row);
  }
  return found;
}
