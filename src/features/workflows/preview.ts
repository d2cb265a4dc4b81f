import type { StepOutcomeView, TemplateContext } from "../../engine/content";
import { evaluateCondition, explainCondition } from "../../engine/conditions";
import { applyOverrides, renderChannel, renderText } from "../../engine/templates";
import { DEFAULT_PATH, onPath, placeSteps } from "../../engine/workflow-tree";
import type { InAppContent } from "../../contract/in-app-content";
import { withoutUnsafeUrls } from "../../engine/in-app-urls";
import type { DraftWorkflow, PreviewRequest, PreviewResponse, PreviewStep } from "./preview-schemas";
import type { Workflow } from "./schemas";
import { type BranchStep, isChannelStep, Step } from "../../engine/steps";
import { issueMessage } from "../../lib/issue-messages";
import { MAX_CONDITION_DEPTH } from "../../lib/json-limits";
import { conditionDepth } from "./condition-depth";
import type { TRANSLATOR } from "../../engine/translate";
import { assetsFor, type PinnedContent } from "../../delivery/recipients/render-content";

const actorView = (actor: PreviewRequest["actor"]): Record<string, unknown> | null =>
  typeof actor === "string" ? { subscriberId: actor } : actor;

/** What a step of the preview leaves for later ones: a run's outcome, with a branch's path, a wait's outcome, a fetch's answer. */
type PreviewOutcome = StepOutcomeView & { path?: string; outcome?: string; response?: SampleResponse };
type SampleResponse = { status: number; headers: Record<string, string>; body: unknown };

function previewStep(
  step: Step,
  base: Omit<TemplateContext, "step">,
  input: PreviewRequest,
  content: PinnedContent,
  onPath: boolean,
  now: Date,
): [PreviewStep, PreviewOutcome] {
  const ctx: TemplateContext = { ...base, step: { id: step.id, type: step.type } };
  const condition = step.if ? explainCondition(step.if, ctx, now) : null;
  const wouldRun = onPath && (condition?.result ?? true);
  const outcome = assumedOutcome(step, wouldRun, input, ctx, now);
  return [
    stepCard(
      step,
      ctx,
      input,
      content,
      { id: step.id, type: step.type, condition, wouldRun, onPath, assumedStatus: outcome.status },
      outcome,
    ),
    outcome,
  ];
}

type CardHead = Pick<PreviewStep, "id" | "type" | "condition" | "wouldRun" | "onPath" | "assumedStatus">;

/** A step's card: a branch's chosen path, the rendered request of a fetch, the rendered content of a channel step. */
function stepCard(
  step: Step,
  ctx: TemplateContext,
  input: PreviewRequest,
  content: PinnedContent,
  head: CardHead,
  outcome: PreviewOutcome,
): PreviewStep {
  const { wouldRun } = head;
  if (step.type === "branch") return { ...head, locale: null, path: wouldRun ? (outcome.path ?? null) : null };
  if (step.type === "http") {
    const rendered = renderValues({ url: step.request.url, headers: step.request.headers, body: step.request.body }, ctx);
    const response = outcome.response ? { response: outcome.response } : {};
    if (!rendered.ok) return { ...head, locale: null, ...response, error: { code: "template_error", message: rendered.message } };
    return { ...head, locale: null, ...response, content: { method: step.request.method, ...rendered.value } };
  }
  if (step.type === "trigger_workflow" || step.type === "update_subscriber") {
    const rendered = renderValues(
      step.type === "trigger_workflow" ? { workflow: step.workflow, payload: step.payload ?? {} } : step.set,
      ctx,
    );
    if (!rendered.ok) return { ...head, locale: null, error: { code: "template_error", message: rendered.message } };
    return { ...head, locale: null, content: rendered.value };
  }
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

/** Every string inside a value rendered as Liquid (a fetch's request, a payload, a subscriber change); the first error wins. */
function renderValues(
  value: Record<string, unknown>,
  ctx: TemplateContext,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let problem: string | null = null;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const r = renderText(v, ctx);
      if (!r.ok) problem ??= r.message;
      return r.ok ? r.text : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (x === undefined ? [] : [[k, walk(x)]])));
    return v;
  };
  const out = walk(value) as Record<string, unknown>;
  return problem === null ? { ok: true, value: out } : { ok: false, message: problem };
}

/** The path a branch takes for the sample: the first whose condition holds, else the default, else none. */
function choosePath(step: BranchStep, ctx: TemplateContext, now: Date): string | undefined {
  const path = step.paths.find((p) => evaluateCondition(p.if, ctx, now));
  if (path) return path.id;
  return step.default ? DEFAULT_PATH : undefined;
}

/**
 * What later steps read as `steps.<id>` for a step of the preview: the caller's choice, else
 * `skipped` when it would not run for the sample, else `sent` (a digest as one event), with a
 * branch's chosen path, a wait's outcome (`matched` unless told) and a fetch's sample response.
 * A preview never calls a fetch step's URL: its answer is the sample given in `responses`, if any.
 */
function assumedOutcome(step: Step, wouldRun: boolean, input: PreviewRequest, ctx: TemplateContext, now: Date): PreviewOutcome {
  const given = input.steps[step.id];
  const status = given?.status ?? (wouldRun ? "sent" : "skipped");
  const outcome: PreviewOutcome = { status, ...(given?.count !== undefined ? { count: given.count } : {}) };
  if (!wouldRun && !given) return outcome;
  if (step.type === "digest" && !given) return { ...outcome, count: 1, events: [input.payload] };
  if (step.type === "branch") {
    const path = given?.path ?? choosePath(step, ctx, now);
    return path === undefined ? outcome : { ...outcome, path };
  }
  if (step.type === "wait") return { ...outcome, outcome: given?.outcome ?? "matched" };
  if (step.type === "http") {
    const sample = input.responses[step.id];
    return sample ? { ...outcome, response: { status: sample.status, headers: sample.headers ?? {}, body: sample.body ?? null } } : outcome;
  }
  return outcome;
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
  // Each step sees only the steps before it, as a run would; the tree is walked in run order and
  // a step is on the sample's path when every branch around it chose its path.
  const earlier: Record<string, PreviewOutcome> = {};
  const chosen = new Map<string, string>();
  const steps = placeSteps(workflow.steps).map(({ step, guard }) => {
    const base: Omit<TemplateContext, "step"> = {
      payload: input.payload,
      subscriber: input.subscriber,
      actor: actorView(input.actor),
      vars,
      workflow: { key: workflow.key, name: workflow.name },
      steps: { ...earlier },
      ...extras,
    };
    const reached = onPath(guard, (branch) => chosen.get(branch));
    const [previewed, outcome] = previewStep(step, base, input, content, reached, now);
    earlier[step.id] = outcome;
    if (previewed.path) chosen.set(step.id, previewed.path);
    return previewed;
  });
  return { workflow: workflow.key, steps };
}

type Checked = { ok: true; step: Step } | { ok: false; card: PreviewStep };

const text = (value: unknown, fallback: string) => (typeof value === "string" && value ? value : fallback);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function checkDraftStep(raw: Record<string, unknown>, where: string): Checked {
  const parsed = Step.safeParse(raw);
  const problem = !parsed.success
    ? parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "step"}: ${issueMessage(issue)}`).join("; ")
    : parsed.data.if && conditionDepth(parsed.data.if) > MAX_CONDITION_DEPTH
      ? `if: conditions nest at most ${MAX_CONDITION_DEPTH} groups deep.`
      : null;
  if (parsed.success && problem === null) return { ok: true, step: parsed.data };
  return {
    ok: false,
    card: {
      id: text(raw.id, where),
      type: text(raw.type, "unknown"),
      condition: null,
      wouldRun: false,
      onPath: false,
      assumedStatus: "skipped",
      locale: null,
      error: { code: "invalid_step", message: problem ?? "The step is not valid." },
    },
  };
}

/**
 * Checks a draft's steps at any depth: a branch is checked as a shell (its paths with no steps),
 * then each of its steps on its own, so one half-written step deep in a path does not hide the others.
 * `order` gets, in run order, null for a valid step and the card of an invalid one.
 */
function checkDraftList(raws: readonly unknown[], where: string, order: (PreviewStep | null)[]): Step[] {
  const steps: Step[] = [];
  raws.forEach((raw, index) => {
    const at = `${where}.${index}`;
    const name = where === "steps" ? `#${index + 1}` : `#${at}`;
    const value = isRecord(raw) ? raw : {};
    if (value.type !== "branch") {
      const checked = checkDraftStep(value, name);
      order.push(checked.ok ? null : checked.card);
      if (checked.ok) steps.push(checked.step);
      return;
    }
    const paths = Array.isArray(value.paths) ? value.paths : [];
    const fallback = isRecord(value.default) ? value.default : undefined;
    const shell = {
      ...value,
      paths: paths.map((p) => (isRecord(p) ? { ...p, steps: [] } : p)),
      ...(fallback ? { default: { ...fallback, steps: [] } } : {}),
    };
    const checked = checkDraftStep(shell, name);
    order.push(checked.ok ? null : checked.card);
    if (!checked.ok || checked.step.type !== "branch") return;
    const branch = checked.step;
    const inner = (list: unknown, place: string) => checkDraftList(Array.isArray(list) ? list : [], place, order);
    const checkedPaths = branch.paths.map((p, i) => ({
      ...p,
      steps: inner(isRecord(paths[i]) ? paths[i].steps : [], `${at}.paths.${i}.steps`),
    }));
    const checkedDefault = branch.default ? { default: { steps: inner(fallback?.steps, `${at}.default.steps`) } } : {};
    steps.push({ ...branch, paths: checkedPaths, ...checkedDefault });
  });
  return steps;
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
  const order: (PreviewStep | null)[] = [];
  const valid = checkDraftList(workflow.steps, "steps", order);
  const previewed = previewWorkflow({ ...workflow, steps: valid }, input, vars, content, now, extras).steps.values();
  const steps = order.map((card) => card ?? previewed.next().value).filter((s): s is PreviewStep => s !== undefined);
  return { workflow: workflow.key, steps };
}
