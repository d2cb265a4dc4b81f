import type { LayoutDefinition, PartialDefinition } from "../../db/schema";
import type { StoredBrand } from "../../db/queries/brand";
import type { TranslationRow } from "../../db/queries/translations";
import { jsonPatch } from "../workflows/versions/json-patch";
import { layoutDefinitionOf } from "../layouts/repository";
import { partialDefinitionOf } from "../partials/repository";
import type { Layout } from "../layouts/schemas";
import type { Partial } from "../partials/schemas";
import type { Workflow } from "../workflows/schemas";
import { definitionOf } from "../workflows/shapes";
import type { PushChange, PushInput, PushResource } from "./schemas";

/** The environment's content as a push reads it. */
export interface Current {
  workflows: Map<string, Workflow>;
  layouts: Map<string, Layout>;
  partials: Map<string, Partial>;
  brand: StoredBrand;
  translations: Map<string, TranslationRow>;
}

/** Per resource, what it is now (null: not there) and what the push makes it (null: removed). */
function compare<T>(resource: PushResource, key: string, before: { definition: T; version: number } | null, after: T | null): PushChange {
  if (!before) return { resource, key, change: "added", patch: jsonPatch({}, after), version: 1 };
  if (after === null) return { resource, key, change: "removed", patch: [], version: before.version + 1 };
  const patch = jsonPatch(before.definition, after);
  return patch.length === 0
    ? { resource, key, change: "unchanged", patch, version: before.version }
    : { resource, key, change: "changed", patch, version: before.version + 1 };
}

/** Keyed content: each pushed one against the current, then (with `prune`) the current ones not pushed. */
function keyed<I extends { key: string }, C extends { version: number }, D>(
  resource: PushResource,
  pushed: readonly I[],
  current: ReadonlyMap<string, C>,
  definition: (value: I | C) => D,
  prune: boolean,
) {
  const keys = new Set(pushed.map((p) => p.key));
  const changes = pushed.map((p) => {
    const now = current.get(p.key);
    return compare(resource, p.key, now ? { definition: definition(now), version: now.version } : null, definition(p));
  });
  if (prune) {
    for (const [key, now] of current)
      if (!keys.has(key)) changes.push(compare(resource, key, { definition: definition(now), version: now.version }, null));
  }
  return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What the push changes, resource by resource: the dry run's answer and the write's plan. */
export function pushPlan(input: PushInput, current: Current): PushChange[] {
  const brand: PushChange[] =
    input.brand === null
      ? []
      : [
          compare(
            "brand",
            "brand",
            current.brand.version === 0 ? null : { definition: current.brand.definition, version: current.brand.version },
            input.brand,
          ),
        ];
  const locales = new Map(
    [...current.translations].map(([locale, row]) => [locale, { key: locale, keys: row.keys, version: row.version }]),
  );
  return [
    ...keyed("workflow", input.workflows, current.workflows, definitionOf, input.prune),
    ...keyed("layout", input.layouts, current.layouts, (l): LayoutDefinition => layoutDefinitionOf(l), input.prune),
    ...keyed("partial", input.partials, current.partials, (p): PartialDefinition => partialDefinitionOf(p), input.prune),
    ...brand,
    ...keyed(
      "translations",
      input.translations.map((t) => ({ key: t.locale, keys: t.keys })),
      locales,
      (t) => t.keys,
      input.prune,
    ),
  ];
}
