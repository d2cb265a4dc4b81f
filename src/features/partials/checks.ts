import { renderedPartials } from "../../engine/partials";
import { parseTemplate } from "../../engine/templates";
import { ApiError, type FieldError } from "../../lib/errors";
import type { ContentReads } from "../content/reads";
import type { Data } from "../data";
import { partialIssues, type TemplateSource, workflowTemplateSources } from "./references";
import { checkContentTranslationKeys } from "../translations/workflow-keys";
import type { PartialInput } from "./schemas";

/**
 * A partial is checked when saved (and reverted): Liquid that parses, partials it renders that
 * exist, without a cycle, at most 5 deep, and `t` keys the default locale has.
 */
export async function checkPartial(data: ContentReads, input: PartialInput): Promise<void> {
  const parsed = parseTemplate(input.content, input.type);
  if (!parsed.ok)
    throw new ApiError("validation_failed", "The partial does not parse.", [{ path: "content", message: `Liquid: ${parsed.message}` }]);
  const errors = await partialIssues([{ path: ["content"], source: input.content, mode: input.type }], () => data.partials.all(), {
    key: input.key,
    content: input.content,
    type: input.type,
  });
  if (errors.length > 0) throw new ApiError("validation_failed", "The partial cannot render.", errors);
  await checkContentTranslationKeys(data, { content: input.content });
}

const renders = (key: string) => (source: TemplateSource) => {
  if (!source.source.includes("{%")) return false;
  const parsed = parseTemplate(source.source, source.mode);
  return parsed.ok && renderedPartials(parsed.templates).some((ref) => ref.key === key);
};

/** Where `key` is rendered from: `workflows.<key>.steps.0.template.html`, `layouts.<key>.html`, `partials.<key>.content`. */
export async function partialUsers(data: Data, key: string): Promise<string[]> {
  const [flows, layouts, partials] = await Promise.all([data.partials.workflowsMentioning(key), data.layouts.all(), data.partials.all()]);
  const rendersKey = renders(key);
  const found: FieldError["path"][] = [];
  for (const w of flows) {
    for (const s of workflowTemplateSources(w.steps)) if (rendersKey(s)) found.push(`workflows.${w.key}.${s.path.join(".")}`);
  }
  for (const l of layouts) {
    if (rendersKey({ path: [], source: l.html, mode: "html" })) found.push(`layouts.${l.key}.html`);
    if (l.text !== null && rendersKey({ path: [], source: l.text, mode: "text" })) found.push(`layouts.${l.key}.text`);
  }
  for (const p of partials) {
    if (p.key !== key && rendersKey({ path: [], source: p.content, mode: p.type })) found.push(`partials.${p.key}.content`);
  }
  return found;
}
