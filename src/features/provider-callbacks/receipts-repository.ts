import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunk, rowsPerStatement, runBatch } from "../../db/batch";
import { webhookReceipts } from "../../db/schema";

/**
 * Records the ids of a verified webhook's deliveries and events, and answers the ones that were
 * new: an id already there is a replay (or the provider's retry of something applied).
 */
export async function claimReceipts(db: Db, integrationId: string, keys: string[], now = new Date()): Promise<Set<string>> {
  const unique = [...new Set(keys)];
  const statements = chunk(unique, rowsPerStatement(3)).map((slice) =>
    db
      .insert(webhookReceipts)
      .values(slice.map((key) => ({ integrationId, key, receivedAt: now })))
      .onConflictDoNothing()
      .returning({ key: webhookReceipts.key }),
  );
  const results = (await runBatch(db, statements)) as { key: string }[][];
  return new Set(results.flat().map((r) => r.key));
}

/** Forgets claimed ids whose reports could not be written, so the provider's retry is applied. */
export async function releaseReceipts(db: Db, integrationId: string, keys: string[]): Promise<void> {
  await runBatch(
    db,
    chunk(keys, 90).map((slice) =>
      db.delete(webhookReceipts).where(and(eq(webhookReceipts.integrationId, integrationId), inArray(webhookReceipts.key, slice))),
    ),
  );
}
