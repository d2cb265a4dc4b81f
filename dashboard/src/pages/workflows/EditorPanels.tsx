import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { variableKeysQuery } from "../variables/queries";
import { fieldGroups } from "./field-options";
import type { Workflow } from "./model";
import { PayloadSchemaEditor } from "./PayloadSchemaEditor";
import { PreviewPanel } from "./PreviewPanel";
import { SendTest } from "./SendTest";
import { SettingsCard } from "./SettingsCard";
import { StepPanel } from "./StepPanel";
import { StepTree } from "./StepTree";
import { replaceStep, stepAt, stepsBefore } from "./tree";
import { marksOf } from "./tree-marks";
import { usePreview } from "./use-preview";
import { useTreeEdits } from "./use-tree-edits";
import type { WorkflowDraft } from "./use-workflow-draft";

/** The editor's tab: settings, payload schema, the step tree and the selected step on one side; preview and test send on the other. */
export function EditorPanels({ saved, edit }: { saved: Workflow | null; edit: WorkflowDraft }) {
  const api = useApi();
  const variables = useQuery(variableKeysQuery(api));
  const { draft, selected, schema, samples, setSamples } = edit;
  const edits = useTreeEdits(edit);
  const step = selected ? stepAt(draft.steps, selected) : undefined;
  const groups = fieldGroups(schema.ok ? schema.value : null, variables.data ?? [], step ? stepsBefore(draft.steps, selected) : []);
  const preview = usePreview(draft.key, draft.name, draft.steps, samples);
  const marks = marksOf(draft.steps, preview.query.data?.steps);
  return (
    <div className="workflow-editor">
      <div className="editor-main">
        <SettingsCard draft={draft} keyFixed={saved !== null} onChange={edit.patch} />
        <PayloadSchemaEditor text={draft.payloadSchemaText} onChange={edit.changeSchema} />
        <StepTree steps={draft.steps} selected={selected} marks={marks} onSelect={edit.setSelected} edits={edits} />
        {step ? (
          <StepPanel
            // A step's own fields (headers as rows, a body as typed) start over when another step is selected.
            key={selected}
            step={step}
            at={selected}
            steps={draft.steps}
            groups={groups}
            onChange={(next) => edit.setSteps(replaceStep(draft.steps, selected, next))}
            onMove={(to) => edits.move(selected, to)}
            onRemove={() => edits.remove(selected)}
          />
        ) : null}
      </div>
      <aside className="editor-side">
        <PreviewPanel steps={draft.steps} selected={selected} samples={samples} preview={preview} onSamples={setSamples} />
        {saved ? <SendTest workflowKey={saved.key} unsaved={edit.unsaved} payloadText={samples.payload} defaultSubscriber="" /> : null}
      </aside>
    </div>
  );
}
