import { jsonEqual } from "../workflows/versions/json-patch";

/** The fields of a definition that differ, in the definition's order. */
export function changedFields<T extends object>(from: T, to: T): string[] {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])] as (keyof T & string)[];
  return keys.filter((k) => !jsonEqual(from[k] ?? null, to[k] ?? null));
}

/** The one line a version list shows: what changed. */
export const summaryOf = (fields: string[]) => (fields.length === 0 ? "No changes" : `${fields.join(", ")} changed`);
