// Two versions of a thing as rows of fields side by side (a workflow's versions, an audit
// entry's before and after): pairing the rows by path and marking the lines each side lacks.

export interface FieldRow {
  /** Dotted, as the API's changes name fields: `template.subject`, `locales.de.subject`, `if`. */
  path: string;
  value: string;
}

export interface DiffRow {
  path: string;
  before?: string;
  after?: string;
  changed: boolean;
}

/** Text as it was typed; anything else as indented JSON; absent (undefined, null for an optional field) as nothing. */
export function show(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** Entries as rows, those with no value left out. */
export function rowsOf(entries: [string, unknown][]): FieldRow[] {
  return entries.flatMap(([path, value]) => {
    const text = show(value);
    return text === undefined ? [] : [{ path, value: text }];
  });
}

/** Whether a listed field is this row's, one inside it, or an object around it (`locales` added). */
const named = (path: string, fields: string[]) => fields.some((f) => f === path || f.startsWith(`${path}.`) || path.startsWith(`${f}.`));

/** Rows of both sides by path, in the later side's order with fields only the earlier had after them. */
export function pairRows(before: FieldRow[], after: FieldRow[], fields: string[] = []): DiffRow[] {
  const old = new Map(before.map((r) => [r.path, r.value]));
  const paths = [...after.map((r) => r.path), ...before.map((r) => r.path).filter((p) => !after.some((r) => r.path === p))];
  const now = new Map(after.map((r) => [r.path, r.value]));
  return paths.map((path) => {
    const b = old.get(path);
    const a = now.get(path);
    return { path, before: b, after: a, changed: b !== a || named(path, fields) };
  });
}

export interface Line {
  text: string;
  /** Not among the other side's lines: what this side added or lost. */
  marked: boolean;
}

/** A value's lines, each marked when the other side has no such line left to pair it with. */
export function markLines(text: string, other: string | undefined): Line[] {
  const left = new Map<string, number>();
  for (const line of (other ?? "").split("\n")) left.set(line, (left.get(line) ?? 0) + 1);
  return text.split("\n").map((line) => {
    const count = left.get(line) ?? 0;
    if (other !== undefined && count > 0) {
      left.set(line, count - 1);
      return { text: line, marked: false };
    }
    return { text: line, marked: true };
  });
}
