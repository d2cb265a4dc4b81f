import { sql } from "drizzle-orm";
import type { Db } from "../client";
import { contentStamps } from "../schema";

/** Moves the environment's content stamp; put first in the batch of a layout's or partial's write. */
export const bumpContentStamp = (db: Db, environmentId: string) =>
  db
    .insert(contentStamps)
    .values({ environmentId, stamp: 1 })
    .onConflictDoUpdate({ target: contentStamps.environmentId, set: { stamp: sql`${contentStamps.stamp} + 1` } });

/** The environment's stamp as a subquery (0 before any layout or partial was written), for a statement that reads it. */
export const contentStampOf = (environmentId: string) =>
  sql<number>`coalesce((SELECT stamp FROM content_stamps WHERE environment_id = ${environmentId}), 0)`;
