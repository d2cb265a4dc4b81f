import { isChannelStep, type Step } from "../../engine/steps";
import { describeGraphIssue, type PartialReference, partialGraphIssues, renderedPartials } from "../../engine/partials";
import { type Mode, parseTemplate } from "../../engine/templates";
import { placeSteps } from "../../engine/workflow-tree";
import type { FieldError } from "../../lib/errors";
import type { Partial } from "./schemas";

/** One Liquid string of what is being saved, with its path in the body and the engine that renders it. */
export interface TemplateSource {
  path: (string | number)[];
  source: string;
  mode: Mode;
}

const hasLiquid = (source: string) => source.includes("{%");

/**
 * What is wrong with the partials these templates render, followed through the partials those
 * render: unknown, a cycle, deeper than 5, or named by a variable. `saving` is a partial being
 * saved: its new content counts instead of the stored one, and a cycle back to it is found.
 * `partials` is read only when a template renders one.
 */
export async function partialIssues(
  sources: readonly TemplateSource[],
  partials: () => Promise<Pick<Partial, "key" | "content" | "type">[]>,
  saving?: { key: string; content: string; type: Mode },
): Promise<FieldError[]> {
  const parsed = sources.flatMap((s) => {
    if (!hasLiquid(s.source)) return [];
    const result = parseTemplate(s.source, s.mode);
    // A template that does not parse is reported by its own check.
    return result.ok ? [{ path: s.path, refs: renderedPartials(result.templates) }] : [];
  });
  if (!parsed.some((p) => p.refs.length > 0)) return [];
  const stored = new Map((await partials()).map((p) => [p.key, p]));
  const cache = new Map<string, PartialReference[] | null>();
  const renders = (key: string): PartialReference[] | null => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const found = saving?.key === key ? { content: saving.content, type: saving.type } : stored.get(key);
    let refs: PartialReference[] | null = null;
    if (found) {
      const result = hasLiquid(found.content) ? parseTemplate(found.content, found.type) : null;
      refs = result?.ok ? renderedPartials(result.templates) : [];
    }
    cache.set(key, refs);
    return refs;
  };
  return parsed.flatMap(({ path, refs }) => {
    // A partial's own content is checked as what renders it would see it: from the partial itself.
    const start: PartialReference[] = saving ? [{ key: saving.key }] : refs;
    return partialGraphIssues(start, renders).map((issue) => ({ path: path.join("."), message: describeGraphIssue(issue) }));
  });
}

/** Every Liquid string inside a value, with its path. */
function strings(value: unknown, path: (string | number)[]): [(string | number)[], string][] {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, [...path, i]));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => strings(v, [...path, k]));
  return [];
}

/** A workflow's channel templates (base and locale variants) wherever they sit in its tree, as the engine renders them. */
export function workflowTemplateSources(steps: readonly Step[]): TemplateSource[] {
  return placeSteps(steps).flatMap(({ step, at }) => {
    if (!isChannelStep(step)) return [];
    return [...strings(step.template, [...at, "template"]), ...strings(step.locales ?? {}, [...at, "locales"])].map(([path, source]) => ({
      path,
      source,
      mode: step.type === "email" && path.at(-1) === "html" ? ("html" as const) : ("text" as const),
    }));
  });
}
