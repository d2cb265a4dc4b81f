import type { ReactNode } from "react";
import { DiffValue } from "./DiffValue";
import type { DiffRow as Row } from "./field-diff";
import { Table } from "./Table";

/**
 * Two versions side by side (an audit entry's before and after, two workflow versions): the
 * frame, with a Field column and one per side; its bodies are the caller's.
 */
export function FieldDiffTable({ heads, children, testId }: { heads: [ReactNode, ReactNode]; children: ReactNode; testId?: string }) {
  return (
    <Table className="field-diff" data-testid={testId}>
      <colgroup>
        <col className="field-col" />
        <col />
        <col />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">{heads[0]}</th>
          <th scope="col">{heads[1]}</th>
        </tr>
      </thead>
      {children}
    </Table>
  );
}

/** One field before and after, highlighted when it changed, with the lines each side lacks marked. */
export function DiffRow({ row }: { row: Row }) {
  return (
    <tr data-field={row.path} data-changed={row.changed} className={row.changed ? "changed" : undefined}>
      <th scope="row">
        <code>{row.path}</code>
      </th>
      <td className="before">
        <DiffValue text={row.before} other={row.after} side="before" />
      </td>
      <td className="after">
        <DiffValue text={row.after} other={row.before} side="after" />
      </td>
    </tr>
  );
}
