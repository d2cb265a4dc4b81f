import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { andThen } from "../../api/mutations";
import { useConfirm } from "../../ui/ConfirmDialog";
import { standingError } from "../../ui/standing-errors";
import { EditorHeader } from "./EditorHeader";
import { EditorNotices } from "./EditorNotices";
import { EditorPanels } from "./EditorPanels";
import { EditorTabs } from "./EditorTabs";
import { HistoryTab } from "./history/HistoryTab";
import { type Draft, duplicateOf, toDraft, toInput, type Workflow } from "./model";
import { deleteWorkflowMutation, reloadWorkflowMutation, saveWorkflowMutation, toggleWorkflowMutation } from "./queries";
import { SaveErrorsProvider } from "./save-errors";
import { useLeaveGuard } from "./use-leave-guard";
import { useWorkflowDraft } from "./use-workflow-draft";

/** The whole editor: its header and notices, then the Editor tab (EditorPanels) or the History tab of a saved workflow. */
export function WorkflowEditor({ saved, copyOf }: { saved: Workflow | null; copyOf?: Draft }) {
  const api = useApi();
  const navigate = useNavigate();
  const leaving = useRef(false);
  // Arrived at the saved workflow's own address: guard again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the stored key changes
  useEffect(() => {
    leaving.current = false;
  }, [saved?.key]);
  const edit = useWorkflowDraft(saved, copyOf);
  const { draft, setDraft, schema, unsaved } = edit;

  const save = useMutation(
    andThen(saveWorkflowMutation(api, saved), (wf) => {
      setDraft(toDraft(wf));
      edit.keepSamplesFor(wf.key);
      if (wf.key !== saved?.key) {
        leaving.current = true;
        navigate(`/workflows/${encodeURIComponent(wf.key)}`, { replace: true });
      }
    }),
  );
  const toggle = useMutation(andThen(toggleWorkflowMutation(api), (wf) => setDraft((d) => ({ ...d, active: wf.active }))));
  const remove = useMutation(
    andThen(deleteWorkflowMutation(api), () => {
      leaving.current = true;
      navigate("/workflows");
    }),
  );
  // Someone else's version replaces the draft (and the version every write names).
  const reload = useMutation(
    andThen(reloadWorkflowMutation(api), (wf) => {
      setDraft(toDraft(wf));
      for (const m of [save, toggle, remove]) m.reset();
    }),
  );
  // A revert (the History tab) stored the restored version already: the draft follows it.
  const restore = (wf: Workflow) => setDraft(toDraft(wf));

  const [dialog, ask] = useConfirm();
  useLeaveGuard(unsaved, leaving, ask);
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
  const deleteAsked = async (wf: Workflow) => {
    const yes = await ask({
      title: `Delete the workflow ${wf.key}?`,
      body: "Triggers already accepted still run; new triggers of this key are refused.",
      confirm: "Delete workflow",
      danger: true,
    });
    if (yes) remove.mutate(wf);
  };
  const [params, setParams] = useSearchParams();
  const tab = saved && params.get("tab") === "history" ? "history" : "editor";
  const viewDiff = (from: number, to: number) => setParams({ tab: "history", from: String(from), to: String(to) }, { replace: false });
  // Errors of the last save fade as their fields are fixed, banner included.
  const saveError = standingError(save.error, save.variables, schema.ok ? toInput(draft, schema.value) : undefined);

  return (
    <SaveErrorsProvider error={saveError}>
      <EditorHeader
        saved={saved}
        unsaved={unsaved}
        canSave={schema.ok}
        saveBlockedBecause={schema.ok ? undefined : schema.message}
        saving={save.isPending}
        toggling={toggle.isPending}
        deleting={remove.isPending}
        onDuplicate={() => navigate("/workflows/new", { state: { copyOf: duplicateOf(draft) } })}
        onToggle={() => saved && toggle.mutate(saved)}
        onDelete={() => saved && void deleteAsked(saved)}
        onSave={() => schema.ok && save.mutate(toInput(draft, schema.value))}
      />
      {dialog}
      <EditorNotices
        saved={saved}
        saveError={saveError}
        toggleError={toggle.error}
        deleteError={remove.error}
        reloadError={reload.error}
        savedNow={save.isSuccess && !unsaved}
        onReload={() => void reloadTheirs()}
        onViewDiff={viewDiff}
      />
      {saved ? <EditorTabs tab={tab} /> : null}
      {saved && tab === "history" ? (
        <HistoryTab workflow={saved} unsaved={unsaved} onReverted={restore} onReload={() => void reloadTheirs()} />
      ) : (
        <EditorPanels saved={saved} edit={edit} />
      )}
    </SaveErrorsProvider>
  );
}
