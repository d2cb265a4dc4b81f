import { contentSlots } from "../../engine/layouts";
import type { Step } from "../../engine/steps";
import { placeSteps } from "../../engine/workflow-tree";
import { parseTemplate } from "../../engine/templates";
import { ApiError, type FieldError } from "../../lib/errors";
import type { ContentReads } from "../content/reads";
import { partialIssues, workflowTemplateSources } from "../partials/references";
import { checkContentTranslationKeys } from "../translations/workflow-keys";
import type { LayoutInput } from "./schemas";

/**
 * A layout is checked as a workflow's templates are, when it is saved: `{{ content }}` once in
 * each part (422 `layout_content_missing`), Liquid that parses, and partials that exist without
 * a cycle or more than 5 levels (422 `validation_failed`), and `t` keys the default locale has
 * (422 `translation_key_missing`).
 */
export async function checkLayout(data: ContentReads, input: LayoutInput): Promise<void> {
  const parts = [["html", input.html, "html"] as const, ...(input.text ? [["text", input.text, "text"] as const] : [])];
  const missing = parts.flatMap(([field, source]): FieldError[] => {
    const n = contentSlots(source);
    if (n === 1) return [];
    return [
      {
        path: field,
        message:
          n === 0 ? "Must contain {{ content }}, where the step's content goes." : `Must contain {{ content }} once, not ${n} times.`,
      },
    ];
  });
  if (missing.length > 0) {
    throw new ApiError("layout_content_missing", "A layout's HTML (and text, when given) contains {{ content }} exactly once.", missing);
  }
  const errors: FieldError[] = parts.flatMap(([field, source, mode]) => {
    const parsed = parseTemplate(source, mode);
    return parsed.ok ? [] : [{ path: field, message: `Liquid: ${parsed.message}` }];
  });
  errors.push(
    ...(await partialIssues(
      parts.map(([field, source, mode]) => ({ path: [field], source, mode })),
      () => data.partials.all(),
    )),
  );
  if (errors.length > 0) throw new ApiError("validation_failed", "The layout's templates cannot render.", errors);
  await checkContentTranslationKeys(data, { html: input.html, text: input.text });
}

/**
 * What a workflow's email steps name must exist: the layout of each `layout` key, and every
 * partial its templates render (with no cycle, at most 5 deep). Checked at save, like its Liquid.
 */
export async function checkWorkflowContent(data: ContentReads, steps: readonly Step[]): Promise<void> {
  const named = placeSteps(steps).flatMap(({ step, at }) =>
    step.type === "email" && typeof step.layout === "string" ? [[at.join("."), step.layout] as const] : [],
  );
  const errors: FieldError[] = [];
  if (named.length > 0) {
    const known = new Set((await data.layouts.all()).map((l) => l.key));
    for (const [at, key] of named) {
      if (!known.has(key)) errors.push({ path: `${at}.layout`, message: `No layout "${key}" in this environment.` });
    }
  }
  errors.push(...(await partialIssues(workflowTemplateSources(steps), () => data.partials.all())));
  if (errors.length > 0) throw new ApiError("validation_failed", "The workflow names layouts or partials that cannot render.", errors);
}
