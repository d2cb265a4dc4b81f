import type { ReactNode } from "react";
import type { DiffRow as Row } from "../../../ui/field-diff";
import { DiffRow, FieldDiffTable } from "../../../ui/FieldDiff";
import type { DiffSection } from "./diff-rows";
import { Badge } from "../../../ui/Badge";
import { Table } from "../../../ui/Table";

const CHANGE_LABEL = { added: "added", removed: "removed", changed: "changed", moved: "moved", unchanged: "unchanged" } as const;
const CHANGE_BADGE = { added: "ok", removed: "bad", changed: "warn", moved: "info", unchanged: "" } as const;

function SectionHead({ section, columns }: { section: DiffSection; columns: number }) {
  const title = section.step === null ? "Settings" : `Step ${section.step}`;
  return (
    <tr className="section" data-depth={section.depth}>
      <th colSpan={columns} scope="colgroup" style={section.depth > 0 ? { paddingInlineStart: `${section.depth * 1.25}rem` } : undefined}>
        {title} {section.type ? <span className="muted">({section.type})</span> : null}{" "}
        {section.where ? <span className="muted">in {section.where}</span> : null}{" "}
        {section.change !== "unchanged" ? <Badge tone={CHANGE_BADGE[section.change]}>{CHANGE_LABEL[section.change]}</Badge> : null}
        {section.moved && section.change !== "moved" ? <Badge tone="info">moved</Badge> : null}
        {section.movedFrom ? <span className="muted"> (moved from {section.movedFrom})</span> : null}
      </th>
    </tr>
  );
}

/**
 * Two versions side by side: a row per field, changed ones highlighted with the lines each side
 * lacks marked. `showUnchanged` off leaves out unchanged fields and sections.
 */
export function DiffTable({
  sections,
  heads,
  showUnchanged,
}: {
  sections: DiffSection[];
  heads: [ReactNode, ReactNode];
  showUnchanged: boolean;
}) {
  const shown = sections.filter((s) => showUnchanged || s.change !== "unchanged");
  const rowsOf = (s: DiffSection): Row[] => (showUnchanged ? s.rows : s.rows.filter((r) => r.changed));
  return (
    <FieldDiffTable heads={heads}>
      {shown.map((section) => (
        <tbody key={section.step ?? "(settings)"} data-diff-section={section.step ?? "settings"} data-change={section.change}>
          <SectionHead section={section} columns={3} />
          {rowsOf(section).map((row) => (
            <DiffRow key={row.path} row={row} />
          ))}
        </tbody>
      ))}
    </FieldDiffTable>
  );
}

/** One version's content, read only: the same rows with one value each. */
export function DefinitionTable({ sections }: { sections: DiffSection[] }) {
  return (
    <Table className="field-diff single">
      <colgroup>
        <col className="field-col" />
        <col />
      </colgroup>
      {sections.map((section) => (
        <tbody key={section.step ?? "(settings)"} data-diff-section={section.step ?? "settings"}>
          <SectionHead section={{ ...section, change: "unchanged", moved: false, movedFrom: undefined }} columns={2} />
          {section.rows.map((row) => (
            <tr key={row.path} data-field={row.path}>
              <th scope="row">
                <code>{row.path}</code>
              </th>
              <td>
                <pre className="value">{row.after}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      ))}
    </Table>
  );
}
