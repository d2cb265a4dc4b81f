import { and, desc, eq, gt, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { environments, events } from "../../db/schema";
import type { EventType } from "../../contract/event-types";
import { idCursor } from "../../lib/cursor";
import { keysetPage } from "../../lib/pagination";
import { eventRow } from "./record";
import type { Event, EventList, EventQuery } from "./schemas";

export type StoredEvent = typeof events.$inferSelect;

/** The event log of one environment, newest first. */
export function eventsRepository(db: Db, environmentId: string) {
  const slug = async () => {
    const [row] = await db.select({ slug: environments.slug }).from(environments).where(eq(environments.id, environmentId));
    return row?.slug ?? "";
  };
  const toEvent = (row: StoredEvent, environment: string): Event => ({
    id: row.id,
    type: row.type,
    timestamp: row.createdAt.toISOString(),
    environment,
    data: row.data,
  });

  return {
    slug,

    async find(id: string): Promise<StoredEvent | undefined> {
      const [row] = await db
        .select()
        .from(events)
        .where(and(eq(events.environmentId, environmentId), eq(events.id, id)));
      return row;
    },

    /** Writes an event meant for one endpoint only (a test): marked dispatched, so nothing else sends it. */
    async recordDirect(type: EventType, data: Record<string, unknown>, now = new Date()): Promise<StoredEvent> {
      const row = { ...eventRow(environmentId, type, data, now), dispatchedAt: now };
      await db.insert(events).values(row);
      return row;
    },

    async list(query: EventQuery): Promise<EventList> {
      const [before] = idCursor.read(query.cursor) ?? [];
      const rows = await db
        .select()
        .from(events)
        .where(
          and(
            eq(events.environmentId, environmentId),
            query.type ? eq(events.type, query.type) : undefined,
            query.after ? gt(events.createdAt, new Date(query.after)) : undefined,
            before ? lt(events.id, before) : undefined,
          ),
        )
        .orderBy(desc(events.id))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, (last) => idCursor.encode([last.id]));
      const environment = await slug();
      return { data: page.rows.map((row) => toEvent(row, environment)), nextCursor: page.nextCursor };
    },
  };
}
