// The editor's view of a workflow: the API's own types (generated from its zod schemas), and the
// small pure changes the editor makes to them.
import type { components } from "../../api/openapi";

export type Workflow = components["schemas"]["Workflow"];
export type WorkflowInput = components["schemas"]["WorkflowInput"];
export type Step = components["schemas"]["Step"];
export type StepType = Step["type"];
export type Condition = components["schemas"]["Condition"];
export type Leaf = Extract<Condition, { op: unknown }>;
export type Op = Leaf["op"];
export type ChannelStep = Extract<Step, { type: "email" | "sms" | "push" | "chat" | "in_app" }>;

export const CHANNEL_TYPES = ["email", "sms", "push", "chat", "in_app"] as const;
export const STEP_TYPES: StepType[] = [
  ...CHANNEL_TYPES,
  "delay",
  "digest",
  "throttle",
  "branch",
  "http",
  "wait",
  "trigger_workflow",
  "update_subscriber",
];
export const isChannelStep = (step: Step): step is ChannelStep => (CHANNEL_TYPES as readonly string[]).includes(step.type);

/** What the form edits: a workflow input with the payload schema as text, so invalid JSON can be typed and shown. */
export interface Draft {
  key: string;
  name: string;
  description: string;
  active: boolean;
  critical: boolean;
  unsubscribe: Workflow["unsubscribe"];
  tags: string[];
  payloadSchemaText: string;
  steps: Step[];
}

/** A new workflow starts active, as one created through the API does (Send test works on an inactive one too). */
export const EMPTY_DRAFT: Draft = {
  key: "",
  name: "",
  description: "",
  active: true,
  critical: false,
  unsubscribe: "workflow",
  tags: [],
  payloadSchemaText: "",
  steps: [],
};

export const toDraft = (wf: Workflow): Draft => ({
  key: wf.key,
  name: wf.name,
  description: wf.description ?? "",
  active: wf.active,
  critical: wf.critical,
  unsubscribe: wf.unsubscribe,
  tags: wf.tags,
  payloadSchemaText: wf.payloadSchema ? JSON.stringify(wf.payloadSchema, null, 2) : "",
  steps: wf.steps,
});

/** What Duplicate starts from: the same content under a new key, which the person may still change before saving. */
export const duplicateOf = (draft: Draft): Draft => ({ ...draft, key: `${draft.key}-copy`.slice(0, 64), name: `${draft.name} (copy)` });

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A JSON object typed by a person: empty means none; anything but an object is refused in words. */
export function parseObject(text: string, what: string): Parsed<Record<string, unknown> | null> {
  if (!text.trim()) return { ok: true, value: null };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, message: `The ${what} must be a JSON object.` };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (error) {
    return { ok: false, message: `The ${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function toInput(draft: Draft, payloadSchema: Record<string, unknown> | null): WorkflowInput {
  return {
    key: draft.key.trim(),
    name: draft.name.trim(),
    description: draft.description.trim() || null,
    active: draft.active,
    critical: draft.critical,
    unsubscribe: draft.unsubscribe,
    tags: draft.tags,
    payloadSchema,
    steps: draft.steps,
  };
}

/**
 * A fresh step of a type, with an id not used yet anywhere in the tree (`email`, `email-2`, ...;
 * `taken` holds every step's and branch path's id) and the fields its type requires.
 */
export function newStep(type: StepType, taken: string[]): Step {
  let id: string = type;
  for (let n = 2; taken.includes(id); n++) id = `${type}-${n}`;
  const pathId = (base: string) => {
    let p = base;
    for (let n = 2; taken.includes(p) || p === id; n++) p = `${base}-${n}`;
    return p;
  };
  switch (type) {
    case "email":
      return { id, type, template: { subject: "", html: "" } };
    case "sms":
      return { id, type, template: { body: "" } };
    case "push":
      return { id, type, template: { title: "", body: "" } };
    case "chat":
      return { id, type, template: { text: "" } };
    case "in_app":
      return { id, type, template: { body: "" } };
    case "delay":
      return { id, type, for: "PT15M" };
    case "digest":
      return { id, type, window: "PT1H", mode: "fixed" };
    case "throttle":
      return { id, type, window: "PT1H", limit: 1 };
    case "http":
      return { id, type, request: { method: "GET", url: "https://" } };
    case "wait":
      return { id, type, until: { signal: "done" }, timeout: "PT1H" };
    case "trigger_workflow":
      return { id, type, workflow: "" };
    case "update_subscriber":
      return { id, type, set: { data: {} } };
    case "branch":
      return { id, type, paths: [{ id: pathId(`${id}-a`), if: { all: [{ field: "payload.", op: "exists" }] }, steps: [] }] };
  }
}

/** A condition with `steps.<from>.…` fields read as `steps.<to>.…`: a renamed step keeps the conditions on it. */
export function renameStepRefs(condition: Condition, from: string, to: string): Condition {
  if ("all" in condition) return { all: condition.all.map((c) => renameStepRefs(c, from, to)) };
  if ("any" in condition) return { any: condition.any.map((c) => renameStepRefs(c, from, to)) };
  if ("not" in condition) return { not: renameStepRefs(condition.not, from, to) };
  const prefix = `steps.${from}.`;
  return condition.field.startsWith(prefix) ? { ...condition, field: `steps.${to}.${condition.field.slice(prefix.length)}` } : condition;
}

/** A saved workflow as the input that writes it again, with `patch` applied (activating it). */
export const inputOf = (wf: Workflow, patch: Partial<WorkflowInput> = {}): WorkflowInput => ({
  key: wf.key,
  name: wf.name,
  description: wf.description,
  active: wf.active,
  critical: wf.critical,
  unsubscribe: wf.unsubscribe,
  tags: wf.tags,
  payloadSchema: wf.payloadSchema,
  steps: wf.steps,
  ...patch,
});
