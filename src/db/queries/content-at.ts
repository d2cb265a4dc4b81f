import { sql } from "drizzle-orm";
import type { Db } from "../client";
import type { LayoutDefinition, PartialDefinition } from "../schema";

interface VersionRow<D> {
  key: string;
  version: number;
  action: string;
  definition: string;
  _?: D;
}

/**
 * The layouts and partials of an environment as they were at a content stamp: per key, its newest
 * version at or below the stamp, deleted ones left out. One D1 batch; what a stamp names never
 * changes, so a caller may keep the answer.
 */
export async function contentAt(db: Db, environmentId: string, stamp: number) {
  const newest = (table: "layout_versions" | "partial_versions", keyColumn: "layout_key" | "partial_key") =>
    db.all<VersionRow<unknown>>(sql`SELECT ${sql.raw(keyColumn)} AS key, version, action, definition FROM ${sql.raw(table)} AS v
      WHERE v.environment_id = ${environmentId} AND v.stamp <= ${stamp}
        AND v.stamp = (SELECT max(w.stamp) FROM ${sql.raw(table)} AS w
          WHERE w.environment_id = v.environment_id AND w.${sql.raw(keyColumn)} = v.${sql.raw(keyColumn)} AND w.stamp <= ${stamp})`);
  const [layouts, partials] = await db.batch([newest("layout_versions", "layout_key"), newest("partial_versions", "partial_key")]);
  const live = <D>(rows: VersionRow<unknown>[]) =>
    rows.filter((r) => r.action !== "deleted").map((r) => ({ key: r.key, version: r.version, definition: JSON.parse(r.definition) as D }));
  return { layouts: live<LayoutDefinition>(layouts), partials: live<PartialDefinition>(partials) };
}
