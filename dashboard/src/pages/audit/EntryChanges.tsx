import { DiffRow, FieldDiffTable } from "../../ui/FieldDiff";
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
    <FieldDiffTable heads={["Before", "After"]} testId="entry-changes">
      <tbody>
        {rows.map((row) => (
          <DiffRow key={row.path} row={row} />
        ))}
      </tbody>
    </FieldDiffTable>
  );
}
