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
  created_at: number;
}

const COLUMNS = "id, env, tx, subscriber, workflow, step, channel, provider, tenant, status, states, error_code, error_message, created_at";

/** These messages as stored now, by id (absent: not stored). */
export function snapshots(sql: SqlStorage, ids: Iterable<string>): Map<string, Snapshot> {
  const found = new Map<string, Snapshot>();
  for (const id of ids) {
    const [row] = sql.exec<Snapshot>(`SELECT ${COLUMNS} FROM messages WHERE id = ?`, id).toArray();
    if (row) found.set(id, row);
  }
  return found;
}
