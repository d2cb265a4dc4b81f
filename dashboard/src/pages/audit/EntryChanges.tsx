import { DiffValue } from "../../ui/DiffValue";
import { pairRows, rowsOf } from "../../ui/field-diff";
import type { AuditEntry } from "./filters";

const fieldsOf = (value: unknown): [string, unknown][] =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : value == null ? [] : [["(value)", value]];

/**
 * An entry's resource before and after the change, field by field, as the API recorded them:
 * secrets are already masked there, and nothing here can unmask them.
 */
export function EntryChanges({ entry }: { entry: AuditEntry }) {
  const rows = pairRows(rowsOf(fieldsOf(entry.before)), rowsOf(fieldsOf(entry.after)));
  if (rows.length === 0) return <p className="muted">Nothing was recorded before or after this change.</p>;
  return (
    <div className="table-wrap">
      <table className="field-diff" data-testid="entry-changes">
        <colgroup>
          <col className="field-col" />
          <col />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path} data-field={row.path} data-changed={row.changed} className={row.changed ? "changed" : undefined}>
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
          ))}
        </tbody>
      </table>
    </div>
  );
}
