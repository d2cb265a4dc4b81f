import { and, desc, eq, inArray, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { olderThan } from "../../db/keyset-window";
import { suppressions } from "../../db/schema";
import { normaliseAddress } from "../../lib/normalise-address";
import { keysetPage } from "../../lib/pagination";
import { type Suppression, type SuppressionList, type SuppressionQuery, suppressionCursor } from "./schemas";

type Row = typeof suppressions.$inferSelect;

const toSuppression = (row: Row): Suppression => ({
  address: row.address,
  channel: row.channel as Suppression["channel"],
  reason: row.reason,
  provider: row.provider,
  messageId: row.messageId,
  createdAt: row.createdAt.toISOString(),
});

/**
 * The stored spellings an address given by a user may have: as given, and normalised as an
 * email or a phone when it looks like one (`Ada@Example.com`, `+1 415 555 2671`).
 */
function storedForms(address: string): string[] {
  const forms = new Set([address.trim()]);
  if (address.includes("@") && !address.includes("://")) forms.add(normaliseAddress("email", address));
  if (/^\+?[\d\s().-]{7,}$/.test(address.trim())) forms.add(normaliseAddress("sms", address));
  return [...forms];
}

/** The suppression list of one environment, newest first. */
export function suppressionsRepository(db: Db, environmentId: string) {
  return {
    async list(query: SuppressionQuery): Promise<SuppressionList> {
      const filters: (SQL | undefined)[] = [
        eq(suppressions.environmentId, environmentId),
        query.channel ? eq(suppressions.channel, query.channel) : undefined,
        query.reason ? eq(suppressions.reason, query.reason) : undefined,
        query.address ? inArray(suppressions.address, storedForms(query.address)) : undefined,
      ];
      const cursor = suppressionCursor.read(query.cursor);
      if (cursor) filters.push(olderThan(suppressions.createdAt, suppressions.address, cursor));
      const rows = await db
        .select()
        .from(suppressions)
        .where(and(...filters))
        .orderBy(desc(suppressions.createdAt), desc(suppressions.address))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, (last) => suppressionCursor.encode([last.createdAt.getTime(), last.address]));
      return { data: page.rows.map(toSuppression), nextCursor: page.nextCursor };
    },

    /** Lifts a suppression: later sends go to the address again. False when it was not on the list. */
    async remove(address: string): Promise<boolean> {
      const deleted = await db
        .delete(suppressions)
        .where(and(eq(suppressions.environmentId, environmentId), inArray(suppressions.address, storedForms(address))))
        .returning({ address: suppressions.address });
      return deleted.length > 0;
    },
  };
}
