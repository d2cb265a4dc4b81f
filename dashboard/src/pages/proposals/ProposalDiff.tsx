import { useState } from "react";
import type { components } from "../../api/openapi";
import { Card } from "../../ui/Card";
import { DiffRow, FieldDiffTable } from "../../ui/FieldDiff";
import { pairRows, rowsOf } from "../../ui/field-diff";
import { Checkbox } from "../../ui/Input";
import { DiffTable } from "../workflows/history/DiffTable";
import { diffSections } from "../workflows/history/diff-rows";
import type { Proposal } from "./queries";

type WorkflowDefinition = components["schemas"]["WorkflowDefinition"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A locale's nested keys as dotted fields (`welcome.subject`), the way its status and `t` name them. */
function flatKeys(value: unknown, prefix = ""): [string, unknown][] {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    const plural = isRecord(v) && "other" in v;
    return isRecord(v) && !plural ? flatKeys(v, path) : [[path, v] as [string, unknown]];
  });
}

const fieldsOf = (p: Proposal, content: unknown): [string, unknown][] =>
  p.resource === "translations" ? flatKeys(isRecord(content) ? content.keys : null) : isRecord(content) ? Object.entries(content) : [];

/** The empty side of a proposal that creates its workflow. */
const nothing = (key: string): WorkflowDefinition => ({
  key,
  name: "",
  description: null,
  active: false,
  critical: false,
  unsubscribe: "workflow",
  tags: [],
  payloadSchema: null,
  steps: [],
});

/**
 * The proposed content beside the version it was made from, as History shows two versions: a
 * workflow step by step, the other kinds field by field, the changed rows marked.
 */
export function ProposalDiff({ proposal }: { proposal: Proposal }) {
  const [showUnchanged, setShowUnchanged] = useState(false);
  const from = proposal.baseVersion === null ? "Nothing yet (new)" : `Version ${proposal.baseVersion} (current when proposed)`;
  const heads: [string, string] = [from, "Proposed"];
  const count = proposal.diff.length;
  return (
    <Card className="version-compare" aria-labelledby="proposal-diff-title" data-testid="proposal-diff">
      <div className="compare-head">
        <h2 id="proposal-diff-title">Changes</h2>
        <label className="inline">
          <Checkbox checked={showUnchanged} onChange={(e) => setShowUnchanged(e.target.checked)} /> Show unchanged fields
        </label>
      </div>
      <p className="muted" data-testid="diff-summary">
        {count === 0 ? "The proposed content is the current content." : `${count} JSON Patch operation${count === 1 ? "" : "s"}.`}
      </p>
      {proposal.resource === "workflow" && proposal.changes ? (
        <DiffTable
          sections={diffSections(
            (proposal.base as WorkflowDefinition | null) ?? nothing(proposal.key),
            proposal.content as WorkflowDefinition,
            proposal.changes,
          )}
          showUnchanged={showUnchanged}
          heads={heads}
        />
      ) : (
        <FieldDiffTable heads={heads}>
          <tbody>
            {pairRows(rowsOf(fieldsOf(proposal, proposal.base)), rowsOf(fieldsOf(proposal, proposal.content)))
              .filter((row) => showUnchanged || row.changed)
              .map((row) => (
                <DiffRow key={row.path} row={row} />
              ))}
          </tbody>
        </FieldDiffTable>
      )}
    </Card>
  );
}
