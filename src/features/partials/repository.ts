import { and, eq, isNull, sql } from "drizzle-orm";
import type { Step } from "../../engine/steps";
import type { Db } from "../../db/client";
import { type PartialDefinition, partials, partialVersions, workflows } from "../../db/schema";
import { keyedContentRepository } from "../content/keyed-repository";
import { type Partial, type PartialInput, type PartialVersion, partialCursor } from "./schemas";

export const partialDefinitionOf = (p: PartialInput | PartialDefinition): PartialDefinition => ({
  key: p.key,
  name: p.name,
  description: p.description ?? null,
  content: p.content,
  type: p.type,
});

/** Partials of one environment, versioned as workflows are; every write moves the environment's content stamp. */
export function partialsRepository(db: Db, environmentId: string) {
  const base = keyedContentRepository<typeof partials.$inferSelect, Partial, PartialDefinition, PartialInput>(db, environmentId, {
    resource: "partial",
    table: partials,
    tableName: "partials",
    columns: { id: partials.id, environmentId: partials.environmentId, key: partials.key, version: partials.version },
    versions: {
      table: partialVersions,
      environmentId: partialVersions.environmentId,
      ownerId: partialVersions.partialId,
      version: partialVersions.version,
    },
    ids: { row: "prt", version: "prv" },
    cursor: partialCursor,
    definitionOf: partialDefinitionOf,
  });

  return {
    ...base,
    version: base.version as (partialId: string, n: number) => Promise<PartialVersion | null>,

    /** Live workflows whose steps mention `key` anywhere (a cheap first pass: the caller parses them). */
    async workflowsMentioning(key: string): Promise<{ key: string; steps: Step[] }[]> {
      const pattern = `%${key.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      return db
        .select({ key: workflows.key, steps: workflows.steps })
        .from(workflows)
        .where(
          and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt), sql`${workflows.steps} LIKE ${pattern} ESCAPE '\\'`),
        )
        .limit(1000);
    },
  };
}
