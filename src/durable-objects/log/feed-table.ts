import { jsonParts, PART_ROWS } from "../../lib/json-parts";
import { addColumnsMissingFrom } from "./added-columns";
import type { FeedChange, FeedCounts, FeedFilter, FeedRow } from "./rows";

/**
 * The in-app feed's table in a log shard: a subscriber's notifications sit in the shard of their
 * partition, with their messages, so a delivery writes the message and its notification in one
 * transaction and every Inbox read or action touches one object.
 */
export const FEED_SCHEMA = `
  CREATE TABLE IF NOT EXISTS in_app_notifications (
    id TEXT PRIMARY KEY, env TEXT NOT NULL, subscriber TEXT NOT NULL, tx TEXT NOT NULL, workflow TEXT NOT NULL, step TEXT NOT NULL,
    content TEXT NOT NULL, tags TEXT NOT NULL, seen_at INTEGER, read_at INTEGER, archived_at INTEGER, snoozed_until INTEGER,
    completed_action TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, context TEXT NOT NULL DEFAULT '', tenant TEXT
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS in_app_env_subscriber ON in_app_notifications (env, subscriber, id);
  CREATE INDEX IF NOT EXISTS in_app_created ON in_app_notifications (created_at);
`;

/**
 * Columns added to the feed after shards were created with it (CREATE TABLE IF NOT EXISTS leaves an
 * existing table as it was): a shard that lacks one gets it, and its old rows read as no context.
 */
const ADDED_FEED_COLUMNS = [
  ["context", "TEXT NOT NULL DEFAULT ''"],
  ["tenant", "TEXT"],
] as const;

/** Adds the feed's missing columns, then the index a scoped Inbox reads (one range per subscriber and context). */
export function addMissingFeedColumns(sql: SqlStorage): void {
  addColumnsMissingFrom(sql, "in_app_notifications", ADDED_FEED_COLUMNS);
  sql.exec("CREATE INDEX IF NOT EXISTS in_app_env_subscriber_context ON in_app_notifications (env, subscriber, context, id)");
}

export interface FeedRecord extends Record<string, SqlStorageValue> {
  id: string;
  env: string;
  subscriber: string;
  tx: string;
  workflow: string;
  step: string;
  content: string;
  tags: string;
  seen_at: number | null;
  read_at: number | null;
  archived_at: number | null;
  snoozed_until: number | null;
  completed_action: string | null;
  created_at: number;
  updated_at: number;
  /** The notification's context key (contract/inbox-context.ts), '' for none; its tenant, null for none. */
  context: string;
  tenant: string | null;
}

export const toFeedRow = (r: FeedRecord): FeedRow => ({
  id: r.id,
  environmentId: r.env,
  subscriberId: r.subscriber,
  transactionId: r.tx,
  workflowKey: r.workflow,
  stepId: r.step,
  content: JSON.parse(r.content) as Record<string, unknown>,
  tags: JSON.parse(r.tags) as string[],
  seenAt: r.seen_at,
  readAt: r.read_at,
  archivedAt: r.archived_at,
  snoozedUntil: r.snoozed_until,
  completedAction: r.completed_action as FeedRow["completedAction"],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  context: r.context ?? "",
  tenantId: r.tenant ?? null,
});

/** A JSON path into `data` with every key quoted, so no key is read as path syntax (as db/queries/in-app.ts). */
const dataPath = (path: readonly string[]) => `$.data${path.map((key) => `."${key.replaceAll('"', "")}"`).join("")}`;

/** A condition and its bound values. */
type Clause = [string, ...SqlStorageValue[]];

/** Every group has a tag the notification carries (an AND of ORs), in one parameter. */
const everyGroupTagged = (groups: readonly (readonly string[])[]): Clause => [
  "NOT EXISTS (SELECT 1 FROM json_each(?) AS g WHERE NOT EXISTS (SELECT 1 FROM json_each(tags) AS t WHERE t.value IN (SELECT value FROM json_each(g.value))))",
  JSON.stringify(groups),
];

/**
 * Every clause matches: the value at its path is one of its values (null matches a missing value
 * too); json_extract answers a JSON boolean as 1 or 0, as json_each does, so `true` matches `true`.
 */
const dataMatches = (clauses: NonNullable<FeedFilter["data"]>): Clause => {
  const spec = clauses.map((c) => ({ p: dataPath(c.path), v: c.anyOf.filter((v) => v !== null), n: c.anyOf.includes(null) ? 1 : 0 }));
  const value = "json_extract(content, json_extract(c.value, '$.p'))";
  return [
    `NOT EXISTS (SELECT 1 FROM json_each(?) AS c WHERE NOT coalesce((json_extract(c.value, '$.n') = 1 AND ${value} IS NULL) OR ${value} IN (SELECT value FROM json_each(c.value, '$.v')), 0))`,
    JSON.stringify(spec),
  ];
};

const flag = (column: string, wanted: boolean | undefined): Clause | undefined =>
  wanted === undefined ? undefined : [wanted ? `${column} IS NOT NULL` : `${column} IS NULL`];

/** The WHERE of one subscriber's notifications that the filter matches. */
function whereOf(environmentId: string, subscriberId: string, f: FeedFilter): Clause {
  const clauses: (Clause | undefined)[] = [
    ["env = ? AND subscriber = ?", environmentId, subscriberId],
    f.context === undefined ? undefined : ["context = ?", f.context],
    f.tenantId === undefined ? undefined : ["tenant = ?", f.tenantId],
    flag("read_at", f.read),
    flag("seen_at", f.seen),
    flag("archived_at", f.archived),
    f.workflowKey === undefined ? undefined : ["workflow = ?", f.workflowKey],
    f.tags?.length ? everyGroupTagged([f.tags]) : undefined,
    f.tagGroups?.length ? everyGroupTagged(f.tagGroups) : undefined,
    f.snoozed === undefined
      ? undefined
      : f.snoozed.value
        ? ["snoozed_until > ?", f.snoozed.now]
        : ["(snoozed_until IS NULL OR snoozed_until <= ?)", f.snoozed.now],
    f.data?.length ? dataMatches(f.data) : undefined,
    f.createdGte === undefined ? undefined : ["created_at >= ?", f.createdGte],
    f.createdLte === undefined ? undefined : ["created_at <= ?", f.createdLte],
    f.ids === undefined ? undefined : ["id IN (SELECT value FROM json_each(?))", JSON.stringify(f.ids)],
  ];
  const present = clauses.filter((c): c is Clause => c !== undefined);
  return [present.map((c) => c[0]).join(" AND "), ...present.flatMap((c) => c.slice(1) as SqlStorageValue[])];
}

/** The SET of a change: setting a moment keeps the first one, clearing it forgets it; reading also sees. */
function setOf(change: FeedChange, now: number): Clause {
  const seen = change.seen ?? (change.read === true ? true : undefined);
  const sets: Clause[] = [["updated_at = ?", now]];
  const moment = (column: string, wanted: boolean | undefined) => {
    if (wanted === undefined) return;
    sets.push(wanted ? [`${column} = coalesce(${column}, ?)`, now] : [`${column} = NULL`]);
  };
  moment("read_at", change.read);
  moment("seen_at", seen);
  moment("archived_at", change.archived);
  if (change.snoozedUntil !== undefined) sets.push(["snoozed_until = ?", change.snoozedUntil]);
  if (change.completedAction !== undefined) sets.push(["completed_action = ?", change.completedAction]);
  return [sets.map((s) => s[0]).join(", "), ...sets.flatMap((s) => s.slice(1) as SqlStorageValue[])];
}

export class FeedTable {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Stores notifications in one statement per part (lib/json-parts.ts), as a write's messages and
   * captures are; one already there (a retried send) is left as it is. Answers the new ones' ids.
   */
  insertAll(rows: readonly FeedRow[]): string[] {
    if (rows.length === 0) return [];
    const values = rows.map((f) => [
      f.id,
      f.environmentId,
      f.subscriberId,
      f.transactionId,
      f.workflowKey,
      f.stepId,
      JSON.stringify(f.content),
      JSON.stringify(f.tags),
      f.seenAt,
      f.readAt,
      f.archivedAt,
      f.snoozedUntil,
      f.completedAction,
      f.createdAt,
      f.updatedAt,
      f.context ?? "",
      f.tenantId ?? null,
    ]);
    const inserted: string[] = [];
    for (const part of jsonParts(values))
      for (const { id } of this.sql.exec<{ id: string }>(
        `${PART_ROWS} INSERT INTO in_app_notifications (id, env, subscriber, tx, workflow, step, content, tags, seen_at, read_at,
           archived_at, snoozed_until, completed_action, created_at, updated_at, context, tenant)
         SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3, v ->> 4, v ->> 5, v ->> 6, v ->> 7, v ->> 8, v ->> 9, v ->> 10, v ->> 11,
           v ->> 12, v ->> 13, v ->> 14, v ->> 15, v ->> 16 FROM part WHERE true
         ON CONFLICT DO NOTHING RETURNING id`,
        part,
      ))
        inserted.push(id);
    return inserted;
  }

  /** Newest first (ids are time-ordered) below `after`, at most `limit`. */
  list(environmentId: string, subscriberId: string, filter: FeedFilter, limit: number, after?: string): FeedRow[] {
    const [where, ...values] = whereOf(environmentId, subscriberId, filter);
    const below = after === undefined ? "" : " AND id < ?";
    return this.sql
      .exec<FeedRecord>(
        `SELECT * FROM in_app_notifications WHERE ${where}${below} ORDER BY id DESC LIMIT ?`,
        ...values,
        ...(after === undefined ? [] : [after]),
        limit,
      )
      .toArray()
      .map(toFeedRow);
  }

  counts(environmentId: string, subscriberId: string, filter: FeedFilter): FeedCounts {
    const [where, ...values] = whereOf(environmentId, subscriberId, filter);
    const [row] = this.sql
      .exec<{ total: number; unread: number; unseen: number; archived: number }>(
        `SELECT count(*) AS total,
           coalesce(sum(read_at IS NULL AND archived_at IS NULL), 0) AS unread,
           coalesce(sum(seen_at IS NULL AND archived_at IS NULL), 0) AS unseen,
           coalesce(sum(archived_at IS NOT NULL), 0) AS archived
         FROM in_app_notifications WHERE ${where}`,
        ...values,
      )
      .toArray();
    return { total: row?.total ?? 0, unread: row?.unread ?? 0, unseen: row?.unseen ?? 0, archived: row?.archived ?? 0 };
  }

  /** Changes every notification the filter matches; answers their ids (a mark-all answers no content). */
  update(environmentId: string, subscriberId: string, change: FeedChange, filter: FeedFilter, now: number): string[] {
    const [set, ...setValues] = setOf(change, now);
    const [where, ...values] = whereOf(environmentId, subscriberId, filter);
    return this.sql
      .exec<{ id: string }>(`UPDATE in_app_notifications SET ${set} WHERE ${where} RETURNING id`, ...setValues, ...values)
      .toArray()
      .map((r) => r.id);
  }

  /** Changes one notification; answers it as changed, or null when it is not this subscriber's (or outside `within`). */
  updateOne(
    environmentId: string,
    subscriberId: string,
    id: string,
    change: FeedChange,
    now: number,
    within: Pick<FeedFilter, "context" | "tenantId"> = {},
  ): FeedRow | null {
    const [set, ...setValues] = setOf(change, now);
    const [where, ...values] = whereOf(environmentId, subscriberId, { context: within.context, tenantId: within.tenantId });
    const [row] = this.sql
      .exec<FeedRecord>(`UPDATE in_app_notifications SET ${set} WHERE id = ? AND ${where} RETURNING *`, ...setValues, id, ...values)
      .toArray();
    return row ? toFeedRow(row) : null;
  }

  /** Deletes every notification the filter matches; answers their ids. */
  remove(environmentId: string, subscriberId: string, filter: FeedFilter): string[] {
    const [where, ...values] = whereOf(environmentId, subscriberId, filter);
    return this.sql
      .exec<{ id: string }>(`DELETE FROM in_app_notifications WHERE ${where} RETURNING id`, ...values)
      .toArray()
      .map((r) => r.id);
  }

  eraseSubscriber(environmentId: string, subscriberId: string): number {
    return this.sql.exec("DELETE FROM in_app_notifications WHERE env = ? AND subscriber = ?", environmentId, subscriberId).rowsWritten;
  }
}
