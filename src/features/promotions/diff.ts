import { versionChanges } from "../workflows/versions/changes";
import { jsonPatch } from "../workflows/versions/json-patch";
import type { EnvironmentContents } from "./repository";
import { brandDiff, translationsDiff } from "./content-diff";
import type { PromotedWorkflow, PromotionDiff } from "./schemas";

type Lists = Omit<PromotionDiff, "from" | "to">;

// The sandbox providers record sends and deliver nothing: a development tool, which another
// environment gets no use from (its counterpart there is a real provider of the same channel).
const isSandbox = (provider: string) => provider.startsWith("sandbox-");

const byName = (i: { provider: string; name: string }) => `${i.provider}\u0000${i.name}`;

/** What differs between two environments, as promotion from `source` to `target` sees it: never a secret's value. */
export function promotionDiff(source: EnvironmentContents, target: EnvironmentContents): Lists {
  const keys = [...new Set([...source.workflows.keys(), ...target.workflows.keys()])].sort();
  const workflows = keys.map((key) => {
    const from = source.workflows.get(key);
    const to = target.workflows.get(key);
    if (!to) return { key, status: "added" as const, patch: jsonPatch({}, from!.definition), changes: [] };
    if (!from) return { key, status: "removed" as const, patch: [], changes: [] };
    const patch = jsonPatch(to.definition, from.definition);
    return {
      key,
      status: patch.length === 0 ? ("unchanged" as const) : ("changed" as const),
      patch,
      changes: versionChanges(to.definition, from.definition),
    };
  });

  const variableKeys = [...new Set([...source.variables.keys(), ...target.variables.keys()])].sort();
  const variables = variableKeys.map((key) => {
    const from = source.variables.get(key);
    const to = target.variables.get(key);
    if (!from) return { key, secret: to!.secret, status: "removed" as const };
    if (from.secret) return { key, secret: true, status: to ? ("present" as const) : ("needs_value" as const) };
    if (!to) return { key, secret: false, status: "added" as const };
    return { key, secret: false, status: !to.secret && to.value === from.value ? ("unchanged" as const) : ("changed" as const) };
  });

  const targetNames = new Set(target.integrations.map(byName));
  const sourceNames = new Set(source.integrations.map(byName));
  const integrations = [
    ...source.integrations.map((i) => ({ ...i, status: targetNames.has(byName(i)) ? ("unchanged" as const) : ("added" as const) })),
    ...target.integrations.filter((i) => !sourceNames.has(byName(i))).map((i) => ({ ...i, status: "removed" as const })),
  ].map((i) => ({ ...i, developmentOnly: isSandbox(i.provider) }));
  return { workflows, variables, integrations, brand: brandDiff(source, target), translations: translationsDiff(source, target) };
}

/**
 * What promoting `keys` (or every added or changed workflow) would do: the same plan answers the
 * dry run and drives the real one, so the two cannot disagree. Keys `source` lacks are returned apart.
 */
export function promotionPlan(source: EnvironmentContents, target: EnvironmentContents, keys: string[] | "all") {
  const wanted = keys === "all" ? [...source.workflows.keys()].sort() : [...new Set(keys)];
  const unknown = wanted.filter((key) => !source.workflows.has(key));
  const workflows: PromotedWorkflow[] = wanted
    .filter((key) => source.workflows.has(key))
    .map((key) => {
      const from = source.workflows.get(key)!;
      const to = target.workflows.get(key);
      if (!to) return { key, outcome: "created", version: 1, patch: jsonPatch({}, from.definition) };
      const patch = jsonPatch(to.definition, from.definition);
      return patch.length === 0
        ? { key, outcome: "unchanged", version: to.version, patch }
        : { key, outcome: "updated", version: to.version + 1, patch };
    });
  const needsValue = [...source.variables].filter(([key, v]) => v.secret && !target.variables.has(key)).map(([key]) => key);
  return { workflows, unknown, needsValue };
}
