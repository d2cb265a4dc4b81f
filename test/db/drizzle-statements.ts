// The drizzle-built statements that delivery's hand-bound ones replaced, kept as they were: the
// tests write the same data both ways and compare what each stored (and answered).
import { and, inArray, notInArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunk } from "../../src/db/batch";
import type { Db } from "../../src/db/client";
import { messages, triggers } from "../../src/db/schema";
import type { MessageFields } from "../../src/delivery/writes/message-writes";

type UpdatedColumn = Exclude<keyof MessageFields, "layoutVersion"> | "status" | "updatedAt";

interface MessageUpdate {
  messageId: string;
  values: Partial<Record<UpdatedColumn, unknown>>;
}

/** delivery/writes/message-writes.ts's `updateMany` before CaseUpdate. */
export function updateMany(db: Db, columns: UpdatedColumn[], group: MessageUpdate[]): BatchItem<"sqlite">[] {
  const driver = (c: UpdatedColumn, value: unknown) => (value == null ? null : messages[c].mapToDriverValue(value as never));
  const shared = columns.filter((c) => {
    const first = JSON.stringify(driver(c, group[0]!.values[c]));
    return group.every((u) => JSON.stringify(driver(c, u.values[c])) === first);
  });
  const varying = columns.filter((c) => !shared.includes(c));
  // 100 bound parameters a statement: the shared values, then per row its id and a WHEN/THEN pair per varying column.
  const perStatement = Math.max(1, Math.floor((100 - shared.length) / (1 + 2 * varying.length)));
  return chunk(group, perStatement).map((rows) => {
    const set: Record<string, unknown> = {};
    for (const c of shared) set[c] = rows[0]!.values[c] ?? null;
    for (const c of varying)
      set[c] = sql`CASE ${messages.id} ${sql.join(
        rows.map((r) => sql`WHEN ${r.messageId} THEN ${driver(c, r.values[c])}`),
        sql` `,
      )} END`;
    return db
      .update(messages)
      .set(set)
      .where(
        inArray(
          messages.id,
          rows.map((r) => r.messageId),
        ),
      );
  });
}

/** delivery/writes/trigger-writes.ts's `finishTriggers` before it was bound by hand. */
export function finishTriggers(
  db: Db,
  items: { environmentId: string; transactionId: string; status: "completed" | "failed" }[],
  now = new Date(),
) {
  return [...Map.groupBy(items, (i) => i.status)].flatMap(([status, group]) =>
    chunk(group, 45).map((part) =>
      db
        .update(triggers)
        .set({ status, updatedAt: now })
        .where(
          and(
            sql`(${triggers.environmentId}, ${triggers.transactionId}) IN (VALUES ${sql.join(
              part.map((i) => sql`(${i.environmentId}, ${i.transactionId})`),
              sql`, `,
            )})`,
            notInArray(triggers.status, ["cancelled", "completed", "failed"]),
          ),
        ),
    ),
  );
}
