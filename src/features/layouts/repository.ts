import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type LayoutDefinition, layouts, layoutVersions, workflows } from "../../db/schema";
import { keyedContentRepository, type SideWrites } from "../content/keyed-repository";
import { type Layout, type LayoutInput, type LayoutVersion, layoutCursor } from "./schemas";

export const layoutDefinitionOf = (l: LayoutInput | LayoutDefinition): LayoutDefinition => ({
  key: l.key,
  name: l.name,
  description: l.description ?? null,
  html: l.html,
  text: l.text ?? null,
  isDefault: l.isDefault ?? false,
});

/** Layouts of one environment, versioned as workflows are; every write moves the environment's content stamp. */
export function layoutsRepository(db: Db, environmentId: string) {
  const mine = eq(layouts.environmentId, environmentId);

  /**
   * A layout that takes the default flag takes it from the layout that has it: a new version of
   * that one, in the same batch as the write that gives the flag.
   */
  const moveDefault: SideWrites<LayoutDefinition> = async ({ key, before, after, actor, context, at }) => {
    if (!after.isDefault || before?.isDefault) return [];
    const [holder] = await db
      .select()
      .from(layouts)
      .where(and(mine, eq(layouts.isDefault, true), ne(layouts.key, key)))
      .limit(1);
    if (!holder) return [];
    const unset = { ...layoutDefinitionOf(holder), isDefault: false };
    const write = { action: "updated", audit: "updated", actor, summary: "isDefault changed" } as const;
    return [...base.rewrite(holder, unset, write, context, at)];
  };

  const base = keyedContentRepository<typeof layouts.$inferSelect, Layout, LayoutDefinition, LayoutInput>(
    db,
    environmentId,
    {
      resource: "layout",
      table: layouts,
      tableName: "layouts",
      columns: { id: layouts.id, environmentId: layouts.environmentId, key: layouts.key, version: layouts.version },
      versions: {
        table: layoutVersions,
        environmentId: layoutVersions.environmentId,
        ownerId: layoutVersions.layoutId,
        version: layoutVersions.version,
      },
      ids: { row: "lay", version: "lyv" },
      cursor: layoutCursor,
      definitionOf: layoutDefinitionOf,
    },
    moveDefault,
  );

  return {
    ...base,
    version: base.version as (layoutId: string, n: number) => Promise<LayoutVersion | null>,

    /** The live workflows whose email steps name `key`, at any depth of their tree (a step's parent is a `steps` list). */
    async usedBy(key: string): Promise<string[]> {
      const rows = await db
        .select({ key: workflows.key })
        .from(workflows)
        .where(
          and(
            eq(workflows.environmentId, environmentId),
            isNull(workflows.deletedAt),
            sql`EXISTS (SELECT 1 FROM json_tree(${workflows.steps}) AS s WHERE s.type = 'object' AND (s.path = '$' OR s.path LIKE '%.steps') AND json_extract(s.value, '$.type') = 'email' AND json_extract(s.value, '$.layout') = ${key})`,
          ),
        )
        .orderBy(asc(workflows.key));
      return rows.map((r) => r.key);
    },
  };
}
