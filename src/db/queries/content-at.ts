import { and, eq, lte, ne, sql } from "drizzle-orm";
import type { Db } from "../client";
import { layoutVersions, partialVersions } from "../schema";

/**
 * The layouts and partials of an environment as they were at a content stamp: per key, its newest
 * version at or below the stamp, deleted ones left out. One D1 batch; what a stamp names never
 * changes, so a caller may keep the answer.
 */
export async function contentAt(db: Db, environmentId: string, stamp: number) {
  const [layouts, partials] = await db.batch([
    db
      .select({ key: layoutVersions.layoutKey, version: layoutVersions.version, definition: layoutVersions.definition })
      .from(layoutVersions)
      .where(
        and(
          eq(layoutVersions.environmentId, environmentId),
          lte(layoutVersions.stamp, stamp),
          ne(layoutVersions.action, "deleted"),
          sql`${layoutVersions.stamp} = (SELECT max(w.stamp) FROM layout_versions AS w
            WHERE w.environment_id = ${environmentId} AND w.layout_key = "layout_versions"."layout_key" AND w.stamp <= ${stamp})`,
        ),
      ),
    db
      .select({ key: partialVersions.partialKey, version: partialVersions.version, definition: partialVersions.definition })
      .from(partialVersions)
      .where(
        and(
          eq(partialVersions.environmentId, environmentId),
          lte(partialVersions.stamp, stamp),
          ne(partialVersions.action, "deleted"),
          sql`${partialVersions.stamp} = (SELECT max(w.stamp) FROM partial_versions AS w
            WHERE w.environment_id = ${environmentId} AND w.partial_key = "partial_versions"."partial_key" AND w.stamp <= ${stamp})`,
        ),
      ),
  ]);
  return { layouts, partials };
}
