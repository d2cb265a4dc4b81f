import { versionChanges } from "../workflows/versions/changes";
import { jsonPatch } from "../workflows/versions/json-patch";
import type { EnvironmentContents } from "./repository";
import type { PromotedContent, PromotedWorkflow, PromotionDiff } from "./schemas";
import { renderedPartials } from "../../engine/partials";
import { parseTemplate } from "../../engine/templates";
import { allSteps } from "../../engine/workflow-tree";
import { type TemplateSource, workflowTemplateSources } from "../partials/references";
import { brandDiff, translationsDiff } from "./content-diff";

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
  return {
    workflows,
    variables,
    integrations,
    layouts: contentDiff(source.layouts, target.layouts),
    partials: contentDiff(source.partials, target.partials),
    brand: brandDiff(source, target),
    translations: translationsDiff(source, target),
  };
}

/** Layouts or partials by key: `added`, `changed`, `removed` or `unchanged`, with the patch promoting would apply. */
function contentDiff<D>(source: ReadonlyMap<string, { definition: D }>, target: ReadonlyMap<string, { definition: D }>) {
  return [...new Set([...source.keys(), ...target.keys()])].sort().map((key) => {
    const from = source.get(key);
    const to = target.get(key);
    if (!to) return { key, status: "added" as const, patch: jsonPatch({}, from!.definition) };
    if (!from) return { key, status: "removed" as const, patch: [] };
    const patch = jsonPatch(to.definition, from.definition);
    return { key, status: patch.length === 0 ? ("unchanged" as const) : ("changed" as const), patch };
  });
}

type LayoutDefinition = EnvironmentContents["layouts"] extends ReadonlyMap<string, { definition: infer D }> ? D : never;

const defaultOf = (layouts: EnvironmentContents["layouts"]) => [...layouts].find(([, l]) => l.definition.isDefault)?.[0];

/**
 * The layouts and partials the promoted workflows render (layouts by name, the default one for an
 * email step naming none, partials from their templates and those layouts, through partials
 * rendering partials): promoted with them when `source` has them and they differ, and `missing`
 * when neither environment has one. Steps are read wherever they sit in a workflow's tree; a
 * workflow a `trigger_workflow` step starts is `missing` unless the target has it or it is promoted too.
 *
 * An email step naming no layout renders in the target's default: when the target has none, the
 * source's default goes with the workflow and becomes the target's default. Any other layout
 * keeps the target's default flag as it is (a promoted layout never takes the flag from another).
 */
function dependencies(source: EnvironmentContents, target: EnvironmentContents, workflowKeys: string[]) {
  const layoutKeys = new Set<string>();
  const partialKeys = new Set<string>();
  const missing: string[] = [];
  const visitPartials = (sources: TemplateSource[]) => {
    for (const s of sources) {
      if (!s.source.includes("{%")) continue;
      const parsed = parseTemplate(s.source, s.mode);
      if (!parsed.ok) continue;
      for (const ref of renderedPartials(parsed.templates)) {
        if (ref.key === null || partialKeys.has(ref.key)) continue;
        partialKeys.add(ref.key);
        const p = source.partials.get(ref.key) ?? target.partials.get(ref.key);
        if (!p) missing.push(`partial "${ref.key}"`);
        else visitPartials([{ path: [], source: p.definition.content, mode: p.definition.type }]);
      }
    }
  };
  let fallsBackToDefault = false;
  for (const key of workflowKeys) {
    const steps = source.workflows.get(key)?.definition.steps ?? [];
    for (const step of allSteps(steps)) {
      if (step.type === "trigger_workflow" && !target.workflows.has(step.workflow) && !workflowKeys.includes(step.workflow)) {
        missing.push(`workflow "${step.workflow}" (triggered by "${key}")`);
      }
      if (step.type !== "email") continue;
      if (typeof step.layout === "string") layoutKeys.add(step.layout);
      else if (step.layout === undefined) fallsBackToDefault = true;
    }
    visitPartials(workflowTemplateSources(steps));
  }
  const promotedDefault = fallsBackToDefault && defaultOf(target.layouts) === undefined ? defaultOf(source.layouts) : undefined;
  if (promotedDefault !== undefined) layoutKeys.add(promotedDefault);
  for (const key of layoutKeys) {
    const l = source.layouts.get(key) ?? target.layouts.get(key);
    if (!l) missing.push(`layout "${key}"`);
    else
      visitPartials([
        { path: [], source: l.definition.html, mode: "html" },
        ...(l.definition.text ? [{ path: [], source: l.definition.text, mode: "text" as const }] : []),
      ]);
  }
  // What each promoted layout lands as: the source's, with the default flag decided above.
  const landing = new Map<string, LayoutDefinition>();
  for (const key of layoutKeys) {
    const from = source.layouts.get(key);
    if (from)
      landing.set(key, {
        ...from.definition,
        isDefault: key === promotedDefault || (target.layouts.get(key)?.definition.isDefault ?? false),
      });
  }
  const promote = <D>(
    keys: Set<string>,
    from: ReadonlyMap<string, { definition: D }>,
    to: ReadonlyMap<string, { version: number; definition: D }>,
  ) =>
    [...keys].sort().flatMap((key): PromotedContent[] => {
      const a = from.get(key);
      if (!a) return [];
      const b = to.get(key);
      if (!b) return [{ key, outcome: "created", version: 1 }];
      return jsonPatch(b.definition, a.definition).length === 0
        ? [{ key, outcome: "unchanged", version: b.version }]
        : [{ key, outcome: "updated", version: b.version + 1 }];
    });
  return {
    layouts: promote(layoutKeys, new Map([...landing].map(([k, definition]) => [k, { definition }])), target.layouts),
    layoutDefinitions: landing,
    partials: promote(partialKeys, source.partials, target.partials),
    missing,
  };
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
  const { layouts, layoutDefinitions, partials, missing } = dependencies(
    source,
    target,
    workflows.map((w) => w.key),
  );
  return { workflows, unknown, needsValue, layouts, layoutDefinitions, partials, missing };
}
