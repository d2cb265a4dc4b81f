import { useState } from "react";
import { useSession } from "../../session/session";
import { samplePayload } from "./describe";
import { type Draft, EMPTY_DRAFT, parseObject, type Step, toDraft, type Workflow } from "./model";
import { keepSamples, type Samples, samplesFor } from "./samples";

/**
 * What the editor edits: the draft, the selected step, and the samples the preview and the test
 * send use (kept per workflow in the browser); `unsaved` when the draft differs from `saved`.
 */
export function useWorkflowDraft(saved: Workflow | null, copyOf: Draft | undefined) {
  const [draft, setDraft] = useState<Draft>(() => (saved ? toDraft(saved) : (copyOf ?? EMPTY_DRAFT)));
  // The selected step's place in the tree (`steps.0.paths.1.steps.0`); "" for none.
  const [selected, setSelected] = useState<string>(() => ((saved?.steps.length ?? copyOf?.steps.length ?? 0) > 0 ? "steps.0" : ""));
  const { environment } = useSession();
  const [samples, setSamplesState] = useState<Samples>(() =>
    samplesFor(environment, saved?.key ?? "", saved?.payloadSchema ?? null, saved?.steps),
  );
  const setSamples = (next: Samples) => {
    setSamplesState(next);
    keepSamples(environment, saved?.key ?? "", next);
  };
  /** The samples follow a workflow saved under a new key. */
  const keepSamplesFor = (key: string) => keepSamples(environment, key, samples);

  const patch = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const setSteps = (steps: Step[], select = selected) => {
    patch({ steps });
    setSelected(select);
  };
  // A sample nobody has edited follows the schema: each property appears in it as the schema gains it.
  const changeSchema = (payloadSchemaText: string) => {
    const before = parseObject(draft.payloadSchemaText, "payload schema");
    const after = parseObject(payloadSchemaText, "payload schema");
    patch({ payloadSchemaText });
    if (before.ok && after.ok && samples.payload === JSON.stringify(samplePayload(before.value), null, 2)) {
      setSamples({ ...samples, payload: JSON.stringify(samplePayload(after.value), null, 2) });
    }
  };
  const unsaved = JSON.stringify(draft) !== JSON.stringify(saved ? toDraft(saved) : EMPTY_DRAFT);
  const schema = parseObject(draft.payloadSchemaText, "payload schema");
  return { draft, setDraft, patch, selected, setSelected, setSteps, changeSchema, samples, setSamples, keepSamplesFor, unsaved, schema };
}

export type WorkflowDraft = ReturnType<typeof useWorkflowDraft>;
