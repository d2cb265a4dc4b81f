import type { StepOutcomeView, TemplateContext } from "../../engine/content";
import { explainCondition } from "../../engine/conditions";
import { applyOverrides, renderChannel } from "../../engine/templates";
import type { InAppContent } from "../../contract/in-app-content";
import { withoutUnsafeUrls } from "../../engine/in-app-urls";
import type { DraftWorkflow, PreviewRequest, PreviewResponse, PreviewStep } from "./preview-schemas";
import type { Workflow } from "./schemas";
import { isChannelStep, Step } from "../../engine/steps";
import { issueMessage } from "../../lib/issue-messages";
import { MAX_CONDITION_DEPTH } from "../../lib/json-limits";
import { conditionDepth } from "./condition-depth";
import type { TRANSLATOR } from "../../engine/translate";
import { assetsFor, type PinnedContent } from "../../delivery/recipients/render-content";

const actorView = (actor: PreviewRequest["actor"]): Record<string, unknown> | null =>
  typeof actor === "string" ? { subscriberId: actor } : actor;

function previewStep(
  step: Step,
  base: Omit<TemplateContext, "step">,
  input: PreviewRequest,
  content: PinnedContent,
  now: Date,
): PreviewStep {
  const ctx: TemplateContext = { ...base, step: { id: step.id, type: step.type } };
  const condition = step.if ? explainCondition(step.if, ctx, now) : null;
  const wouldRun = condition?.result ?? true;
  const head = { id: step.id, type: step.type, condition, wouldRun, assumedStatus: assumedOutcome(step, wouldRun, input).status };
  if (!isChannelStep(step)) return { ...head, locale: null };
  // The email as sent: in its layout (named, the default, or none) with the partials, as they are now.
  const assets = assetsFor(step, content);
  if ("error" in assets) return { ...head, locale: null, error: { code: "template_error", message: assets.error } };
  // Rendered even when the condition is false: the dashboard edits templates whatever the sample.
  const rendered = renderChannel(step, ctx, input.subscriber.locale, assets);
  if (!rendered.ok) return { ...head, locale: null, error: { code: rendered.code, message: rendered.message } };
  const overridden = applyOverrides(step.type, rendered.content, input.overrides);
  // What the Inbox would get: a rendered URL a send would leave out is left out here too.
  const shown = step.type === "in_app" ? withoutUnsafeUrls(overridden as InAppContent).content : overridden;
  return { ...head, locale: rendered.locale, content: { ...shown } };
}

/**
 * What later steps read as `steps.<id>` for a step of the preview: the caller's choice, else
 * `skipped` when its condition is false for the sample, else `sent` (a digest as one event).
 */
function assumedOutcome(step: Step, wouldRun: boolean, input: PreviewRequest): StepOutcomeView {
  const given = input.steps[step.id];
  if (given) return given;
  if (!wouldRun) return { status: "skipped" };
  return step.type === "digest" ? { status: "sent", count: 1, events: [input.payload] } : { status: "sent" };
}

/** The brand and translator a preview renders with (features/translations/preview-inputs.ts). */
export type PreviewExtras = Pick<TemplateContext, "brand" | typeof TRANSLATOR>;

/**
 * What each step of a workflow would do for a sample trigger; pure, so the route only loads and
 * answers (the variables, and the layouts and partials a send would render with now).
 */
export function previewWorkflow(
  workflow: Pick<Workflow, "key" | "name" | "steps">,
  input: PreviewRequest,
  vars: Record<string, string>,
  content: PinnedContent,
  now: Date,
  extras: PreviewExtras = {},
): PreviewResponse {
  // Each step sees only the steps before it, as a run would.
  const earlier: Record<string, StepOutcomeView> = {};
  const steps = workflow.steps.map((step) => {
    const base: Omit<TemplateContext, "step"> = {
      payload: input.payload,
      subscriber: input.subscriber,
      actor: actorView(input.actor),
      vars,
      workflow: { key: workflow.key, name: workflow.name },
      steps: { ...earlier },
      ...extras,
    };
    const previewed = previewStep(step, base, input, content, now);
    earlier[step.id] = assumedOutcome(step, previewed.wouldRun, input);
    return previewed;
  });
  return { workflow: workflow.key, steps };
}

type Checked = { ok: true; step: Step } | { ok: false; card: PreviewStep };

function checkDraftStep(raw: Record<string, unknown>, index: number): Checked {
  const parsed = Step.safeParse(raw);
  const problem = !parsed.success
    ? parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "step"}: ${issueMessage(issue)}`).join("; ")
    : parsed.data.if && conditionDepth(parsed.data.if) > MAX_CONDITION_DEPTH
      ? `if: conditions nest at most ${MAX_CONDITION_DEPTH} groups deep.`
      : null;
  if (parsed.success && problem === null) return { ok: true, step: parsed.data };
  const text = (value: unknown, fallback: string) => (typeof value === "string" && value ? value : fallback);
  return {
    ok: false,
    card: {
      id: text(raw.id, `#${index + 1}`),
      type: text(raw.type, "unknown"),
      condition: null,
      wouldRun: false,
      assumedStatus: "skipped",
      locale: null,
      error: { code: "invalid_step", message: problem ?? "The step is not valid." },
    },
  };
}

/**
 * The preview of an unsaved workflow: the valid steps as a saved workflow's, each invalid one as a
 * card saying what is wrong with it (left out of the run, so later steps do not see it).
 */
export function previewDraft(
  workflow: DraftWorkflow,
  input: PreviewRequest,
  vars: Record<string, string>,
  content: PinnedContent,
  now: Date,
  extras: PreviewExtras = {},
): PreviewResponse {
  const checked = workflow.steps.map(checkDraftStep);
  const valid = checked.flatMap((c) => (c.ok ? [c.step] : []));
  const previewed = previewWorkflow({ ...workflow, steps: valid }, input, vars, content, now, extras).steps.values();
  const steps = checked.map((c) => (c.ok ? previewed.next().value : c.card)).filter((s): s is PreviewStep => s !== undefined);
  return { workflow: workflow.key, steps };
}
