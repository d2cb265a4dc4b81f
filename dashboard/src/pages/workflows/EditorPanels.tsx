import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { variableKeysQuery } from "../variables/queries";
import { fieldGroups } from "./field-options";
import { replaceStep, type Workflow } from "./model";
import { PayloadSchemaEditor } from "./PayloadSchemaEditor";
import { PreviewPanel } from "./PreviewPanel";
import { SendTest } from "./SendTest";
import { SettingsCard } from "./SettingsCard";
import { StepList } from "./StepList";
import { StepPanel } from "./StepPanel";
import type { WorkflowDraft } from "./use-workflow-draft";

/** The editor's tab: settings, payload schema, steps and the selected step on one side; preview and test send on the other. */
export function EditorPanels({ saved, edit }: { saved: Workflow | null; edit: WorkflowDraft }) {
  const api = useApi();
  const variables = useQuery(variableKeysQuery(api));
  const { draft, selected, schema, samples, setSamples } = edit;
  const step = draft.steps[selected];
  const groups = fieldGroups(schema.ok ? schema.value : null, variables.data ?? [], draft.steps.slice(0, selected));
  return (
    <div className="workflow-editor">
      <div className="editor-main">
        <SettingsCard draft={draft} keyFixed={saved !== null} onChange={edit.patch} />
        <PayloadSchemaEditor text={draft.payloadSchemaText} onChange={edit.changeSchema} />
        <StepList steps={draft.steps} selected={selected} onSelect={edit.setSelected} onChange={edit.setSteps} />
        {step ? (
          <StepPanel
            step={step}
            index={selected}
            groups={groups}
            onChange={(next) => edit.setSteps(replaceStep(draft.steps, selected, next))}
          />
        ) : null}
      </div>
      <aside className="editor-side">
        <PreviewPanel
          workflowKey={draft.key}
          name={draft.name}
          steps={draft.steps}
          payloadText={samples.payload}
          subscriberText={samples.subscriber}
          onPayload={(payload) => setSamples({ ...samples, payload })}
          onSubscriber={(subscriber) => setSamples({ ...samples, subscriber })}
        />
        {saved ? <SendTest workflowKey={saved.key} unsaved={edit.unsaved} payloadText={samples.payload} defaultSubscriber="" /> : null}
      </aside>
    </div>
  );
}
