// The accept path's two D1 reads, scoped by the environment of the trigger: both one batch.
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { chunk } from "../../db/batch";
import type { Db } from "../../db/client";
import { topics, workflows } from "../../db/schema";
import { contentStampOf } from "../../db/queries/content-stamps";

/** What the accept path checks of the named workflows (deleted ones left out), in one D1 batch. */
export async function workflowGateRows(db: Db, environmentId: string, keys: string[]) {
  // 98 keys plus the environment id (twice: the content stamp) stay within D1's 100 bound parameters per statement.
  const [first, ...rest] = chunk(keys, 98).map((part) =>
    db
      .select({
        id: workflows.id,
        key: workflows.key,
        version: workflows.version,
        active: workflows.active,
        payloadSchema: workflows.payloadSchema,
        steps: workflows.steps,
        // In the same statement: pinning the layouts and partials costs the accept path no round trip.
        contentStamp: contentStampOf(environmentId),
        // What every workflow of the environment renders with, pinned at accept: read in the same statement, no round trip more.
        // The outer column is written out: drizzle leaves a single table's columns unqualified, which inside a subquery would name its own.
        brandVersion: sql<number>`coalesce((SELECT version FROM brands WHERE brands.environment_id = "workflows"."environment_id"), 0)`,
        translationsRevision: sql<number>`coalesce((SELECT revision FROM translation_settings ts WHERE ts.environment_id = "workflows"."environment_id"), 0)`,
        defaultLocale: sql<string>`coalesce((SELECT default_locale FROM translation_settings ts WHERE ts.environment_id = "workflows"."environment_id"), 'en')`,
      })
      .from(workflows)
      .where(and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt), inArray(workflows.key, part))),
  );
  return (await db.batch([first!, ...rest])).flat();
}

/** Which of `keys` (not empty) are topics of the environment, in one D1 batch. */
export async function existingTopicKeys(db: Db, environmentId: string, keys: string[]): Promise<Set<string>> {
  const [first, ...rest] = chunk(keys, 99).map((part) =>
    db
      .select({ key: topics.key })
      .from(topics)
      .where(and(eq(topics.environmentId, environmentId), inArray(topics.key, part))),
  );
  const rows = (await db.batch([first!, ...rest])).flat();
  return new Set(rows.map((r) => r.key));
}
