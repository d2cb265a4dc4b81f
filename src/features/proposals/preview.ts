import { wrapInLayout } from "../../engine/layouts";
import { withPartials } from "../../engine/partials";
import { renderText } from "../../engine/templates";
import type { TemplateContext } from "../../engine/content";
import { flattenKeys } from "../../engine/translate";
import type { Data } from "../data";
import { previewInputs } from "../translations/preview-inputs";
import { previewDraft } from "../workflows/preview";
import { currentContent } from "../workflows/preview-content";
import { DraftWorkflow, PreviewRequest } from "../workflows/preview-schemas";
import { type ProposalPreview, SAMPLE_CONTENT } from "./schemas";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The sample a workflow's preview renders with: the first example its payload schema gives, else nothing. */
const examplePayload = (content: Record<string, unknown>): Record<string, unknown> => {
  const schema = content.payloadSchema;
  const examples = isRecord(schema) ? schema.examples : undefined;
  return Array.isArray(examples) && isRecord(examples[0]) ? examples[0] : {};
};

const blankContext = (key: string): TemplateContext => ({
  payload: {},
  subscriber: {},
  actor: null,
  vars: {},
  workflow: { key, name: key },
  step: { id: "preview", type: "email" },
  steps: {},
});

export async function workflowPreview(data: Data, key: string, content: unknown): Promise<ProposalPreview | null> {
  if (!isRecord(content)) return null;
  const draft = DraftWorkflow.safeParse({ key, name: typeof content.name === "string" ? content.name : key, steps: content.steps });
  if (!draft.success) return null;
  const input = PreviewRequest.parse({ payload: examplePayload(content) });
  const [vars, pinned] = await Promise.all([data.previewVariables(), currentContent(data)]);
  const extras = await previewInputs(data, draft.data.steps, input.subscriber.locale, pinned);
  return { resource: "workflow", steps: previewDraft(draft.data, input, vars, pinned, new Date(), extras).steps };
}

/** Renders Liquid with the environment's current partials; a template error is the preview's `error`. */
async function rendered(data: Data, key: string, sources: string[]): Promise<{ out: string[] } | { error: string }> {
  const { partials } = await currentContent(data);
  const ctx = { ...blankContext(key), vars: await data.previewVariables() };
  const out: string[] = [];
  for (const source of sources) {
    const result = withPartials(partials, () => renderText(source, ctx));
    if (!result.ok) return { error: result.message };
    out.push(result.text);
  }
  return { out };
}

export async function layoutPreview(data: Data, content: unknown): Promise<ProposalPreview | null> {
  if (!isRecord(content) || typeof content.html !== "string") return null;
  const text = typeof content.text === "string" ? content.text : null;
  let error: string | undefined;
  const render = (source: string) => {
    const result = renderText(source, blankContext("layout"));
    if (!result.ok) error ??= result.message;
    return result.ok ? result.text : "";
  };
  const { partials } = await currentContent(data);
  const [html, plain] = withPartials(partials, () => [
    wrapInLayout(content.html as string, SAMPLE_CONTENT, render),
    text === null ? null : wrapInLayout(text, "Your message goes here.", render),
  ]);
  return error === undefined
    ? { resource: "layout", html: html ?? null, text: plain ?? null }
    : { resource: "layout", html: null, text: null, error };
}

export async function partialPreview(data: Data, content: unknown): Promise<ProposalPreview | null> {
  if (!isRecord(content) || typeof content.content !== "string") return null;
  const result = await rendered(data, "partial", [content.content]);
  return "error" in result
    ? { resource: "partial", content: null, error: result.error }
    : { resource: "partial", content: result.out[0] ?? "" };
}

export function translationsPreview(content: unknown): ProposalPreview | null {
  if (!isRecord(content) || !isRecord(content.keys)) return null;
  return { resource: "translations", texts: flattenKeys(content.keys).keys };
}
