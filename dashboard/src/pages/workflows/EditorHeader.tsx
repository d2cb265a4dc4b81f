import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { PageHeader } from "../../ui/PageHeader";
import type { Workflow } from "./model";

/** The editor's title (name, status, version, unsaved) and its actions: duplicate, (de)activate, delete, save. */
export function EditorHeader({
  saved,
  unsaved,
  canSave,
  saveBlockedBecause,
  saving,
  toggling,
  deleting,
  onDuplicate,
  onToggle,
  onDelete,
  onSave,
}: {
  saved: Workflow | null;
  unsaved: boolean;
  canSave: boolean;
  /** Why Save is disabled (the payload schema does not parse), said on hover. */
  saveBlockedBecause?: string;
  saving: boolean;
  toggling: boolean;
  deleting: boolean;
  onDuplicate: () => void;
  onToggle: () => void;
  onDelete: () => void;
  onSave: () => void;
}) {
  return (
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
          <Button title="A new workflow with this one's content under another key (a key never changes once saved)" onClick={onDuplicate}>
            Duplicate
          </Button>
          <Button onClick={onToggle} disabled={toggling}>
            {saved.active ? "Deactivate" : "Activate"}
          </Button>
          <Button variant="danger" disabled={deleting} onClick={onDelete}>
            Delete
          </Button>
        </>
      ) : null}
      <Button variant="primary" disabled={saving || !canSave} title={saveBlockedBecause} onClick={onSave}>
        {saving ? "Saving…" : saved ? "Save" : "Create"}
      </Button>
    </PageHeader>
  );
}
