import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, useBlocker, useNavigate, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { PageHeader } from "../../ui/PageHeader";
import { standingError } from "../../ui/standing-errors";
import { ProblemView } from "../../ui/ProblemView";
import { samplePayload } from "./describe";
import { fieldGroups } from "./field-options";
import {
  type Draft,
  duplicateOf,
  EMPTY_DRAFT,
  parseObject,
  replaceStep,
  type Step,
  toDraft,
  toInput,
  type Workflow,
  type WorkflowInput,
} from "./model";
import { PayloadSchemaEditor } from "./PayloadSchemaEditor";
import { PreviewPanel } from "./PreviewPanel";
import { keepSamples, type Samples, samplesFor } from "./samples";
import { SaveErrorsProvider } from "./save-errors";
import { SendTest } from "./SendTest";
import { SettingsCard } from "./SettingsCard";
import { StepList } from "./StepList";
import { StepPanel } from "./StepPanel";
import { useConfirm } from "../../ui/ConfirmDialog";
import { ConflictNotice, isConflict } from "./ConflictNotice";
import { HistoryTab } from "./history/HistoryTab";
import { historyKey } from "./history/queries";
import { createWorkflow, deleteWorkflow, readWorkflow, updateWorkflow, WORKFLOWS, workflowQuery } from "./queries";
import { variableKeysQuery } from "../variables/queries";
import { useSession } from "../../session/session";
import { Button } from "../../ui/Button";
import { Badge } from "../../ui/Badge";

const inputOf = (wf: Workflow, patch: Partial<WorkflowInput> = {}): WorkflowInput => ({
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

/** The whole editor: settings, payload schema, steps and the selected step on one side; preview and test send on the other. */
export function WorkflowEditor({ saved, copyOf }: { saved: Workflow | null; copyOf?: Draft }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const leaving = useRef(false);
  // Arrived at the saved workflow's own address: guard again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the stored key changes
  useEffect(() => {
    leaving.current = false;
  }, [saved?.key]);
  const [draft, setDraft] = useState<Draft>(() => (saved ? toDraft(saved) : (copyOf ?? EMPTY_DRAFT)));
  const [selected, setSelected] = useState(0);
  const schema = parseObject(draft.payloadSchemaText, "payload schema");
  const { environment } = useSession();
  const [samples, setSamplesState] = useState<Samples>(() =>
    samplesFor(environment, saved?.key ?? "", saved?.payloadSchema ?? null, saved?.steps),
  );
  const setSamples = (next: Samples) => {
    setSamplesState(next);
    keepSamples(environment, saved?.key ?? "", next);
  };
  const variables = useQuery(variableKeysQuery(api));

  const stored = (wf: Workflow) => {
    queryClient.setQueryData(workflowQuery(api, wf.key).queryKey, wf);
    void queryClient.invalidateQueries({ queryKey: WORKFLOWS });
    void queryClient.invalidateQueries({ queryKey: historyKey(wf.key) });
  };
  const save = useMutation({
    mutationFn: (input: WorkflowInput) => (saved ? updateWorkflow(api, saved, input) : createWorkflow(api, input)),
    onSuccess: (wf) => {
      stored(wf);
      setDraft(toDraft(wf));
      keepSamples(environment, wf.key, samples);
      if (wf.key !== saved?.key) {
        leaving.current = true;
        navigate(`/workflows/${encodeURIComponent(wf.key)}`, { replace: true });
      }
    },
  });
  const toggle = useMutation({
    mutationFn: (wf: Workflow) => updateWorkflow(api, wf, inputOf(wf, { active: !wf.active })),
    onSuccess: (wf) => {
      stored(wf);
      setDraft((d) => ({ ...d, active: wf.active }));
    },
  });
  const [dialog, ask] = useConfirm();
  const remove = useMutation({
    mutationFn: (wf: Workflow) => deleteWorkflow(api, wf),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: WORKFLOWS });
      leaving.current = true;
      navigate("/workflows");
    },
  });

  // Someone else's version replaces the draft (and the version every write names).
  const reload = useMutation({
    mutationFn: (key: string) => readWorkflow(api, key),
    onSuccess: (wf) => {
      restore(wf);
      for (const m of [save, toggle, remove]) m.reset();
    },
  });
  const restore = (wf: Workflow) => {
    stored(wf);
    setDraft(toDraft(wf));
  };
  const reloadTheirs = async () => {
    if (!saved) return;
    const yes =
      !unsaved ||
      (await ask({
        title: "Reload their version?",
        body: "The workflow as it is saved now replaces your unsaved changes here.",
        confirm: "Reload and discard mine",
        danger: true,
      }));
    if (yes) reload.mutate(saved.key);
  };
  const [params, setParams] = useSearchParams();
  const tab = saved && params.get("tab") === "history" ? "history" : "editor";
  const viewDiff = (from: number, to: number) => setParams({ tab: "history", from: String(from), to: String(to) }, { replace: false });

  const patch = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const setSteps = (steps: Step[], select = selected) => {
    patch({ steps });
    setSelected(Math.max(0, select));
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
  // Leaving the page with unsaved changes asks first: a reload or closing the tab through the
  // browser's own prompt, a link within the dashboard through ours. The editor's own moves (after a
  // save or a delete) pass.
  useEffect(() => {
    if (!unsaved) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [unsaved]);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => unsaved && !leaving.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== "blocked") return;
    void ask({
      title: "Leave without saving?",
      body: "This workflow has unsaved changes; they are lost if you leave.",
      confirm: "Leave",
      danger: true,
    }).then((yes) => (yes ? blocker.proceed() : blocker.reset()));
  }, [blocker, ask]);
  // Errors of the last save fade as their fields are fixed, banner included.
  const saveError = standingError(save.error, save.variables, schema.ok ? toInput(draft, schema.value) : undefined);
  const step = draft.steps[selected];
  const groups = fieldGroups(schema.ok ? schema.value : null, variables.data ?? [], draft.steps.slice(0, selected));

  return (
    <SaveErrorsProvider error={saveError}>
      <PageHeader
        title={
          <>
            {saved?.name || "New workflow"}{" "}
            {saved ? (
              <Badge tone={saved.active ? "ok" : ""} data-testid="workflow-status">
                {saved.active ? "active" : "inactive"}
              </Badge>
            ) : null}
            {saved ? (
              <Badge data-testid="workflow-version" title="The version this editor loaded; every save names it in If-Match">
                v{saved.version}
              </Badge>
            ) : null}{" "}
            {unsaved ? <Badge tone="warn">unsaved</Badge> : null}
          </>
        }
      >
        {saved ? (
          <>
            <Button
              type="button"
              title="A new workflow with this one's content under another key (a key never changes once saved)"
              onClick={() => navigate("/workflows/new", { state: { copyOf: duplicateOf(draft) } })}
            >
              Duplicate
            </Button>
            <Button type="button" onClick={() => toggle.mutate(saved)} disabled={toggle.isPending}>
              {saved.active ? "Deactivate" : "Activate"}
            </Button>
            <Button
              type="button"
              variant="danger"
              disabled={remove.isPending}
              onClick={async () => {
                const yes = await ask({
                  title: `Delete the workflow ${saved.key}?`,
                  body: "Triggers already accepted still run; new triggers of this key are refused.",
                  confirm: "Delete workflow",
                  danger: true,
                });
                if (yes) remove.mutate(saved);
              }}
            >
              Delete
            </Button>
          </>
        ) : null}
        <Button
          type="button"
          variant="primary"
          disabled={save.isPending || !schema.ok}
          title={schema.ok ? undefined : schema.message}
          onClick={() => schema.ok && save.mutate(toInput(draft, schema.value))}
        >
          {save.isPending ? "Saving…" : saved ? "Save" : "Create"}
        </Button>
      </PageHeader>
      {dialog}
      {saved && [save.error, toggle.error, remove.error].some(isConflict) ? (
        <ConflictNotice workflowKey={saved.key} loaded={saved.version} onReload={() => void reloadTheirs()} onViewDiff={viewDiff} />
      ) : (
        <>
          {saveError ? <ProblemView error={saveError} /> : null}
          {toggle.error ? <ProblemView error={toggle.error} /> : null}
          {remove.error ? <ProblemView error={remove.error} /> : null}
        </>
      )}
      {reload.error ? <ProblemView error={reload.error} /> : null}
      {save.isSuccess && !unsaved ? (
        <p className="saved muted small" role="status">
          Saved.
        </p>
      ) : null}
      {saved ? (
        <nav className="tabs" aria-label="Workflow">
          <Link to={{ search: "" }} aria-current={tab === "editor" ? "page" : undefined}>
            Editor
          </Link>
          <Link to={{ search: "?tab=history" }} aria-current={tab === "history" ? "page" : undefined}>
            History
          </Link>
        </nav>
      ) : null}
      {saved && tab === "history" ? (
        <HistoryTab workflow={saved} unsaved={unsaved} onReverted={restore} onReload={() => void reloadTheirs()} />
      ) : (
        <div className="workflow-editor">
          <div className="editor-main">
            <SettingsCard draft={draft} keyFixed={saved !== null} onChange={patch} />
            <PayloadSchemaEditor text={draft.payloadSchemaText} onChange={changeSchema} />
            <StepList steps={draft.steps} selected={selected} onSelect={setSelected} onChange={setSteps} />
            {step ? (
              <StepPanel
                step={step}
                index={selected}
                groups={groups}
                onChange={(next) => setSteps(replaceStep(draft.steps, selected, next))}
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
            {saved ? <SendTest workflowKey={saved.key} unsaved={unsaved} payloadText={samples.payload} defaultSubscriber="" /> : null}
          </aside>
        </div>
      )}
    </SaveErrorsProvider>
  );
}
