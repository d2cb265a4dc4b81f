import { jsonEqual, jsonPatch } from "../workflows/versions/json-patch";

/** The fields of a definition that differ, in the definition's order. */
export function changedFields<T extends object>(from: T, to: T): string[] {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])] as (keyof T & string)[];
  return keys.filter((k) => !jsonEqual(from[k] ?? null, to[k] ?? null));
}

/** The one line a version list shows: what changed. */
export const summaryOf = (fields: string[]) => (fields.length === 0 ? "No changes" : `${fields.join(", ")} changed`);

/**
 * The versions a diff compares when the query leaves them out: `to` the latest, `from` the one
 * before it (never below 1, where every concept's versions start).
 */
export function diffRange(query: { from?: number; to?: number }, latest: number): { from: number; to: number } {
  const to = query.to ?? latest;
  return { from: query.from ?? Math.max(1, to - 1), to };
}

/**
 * The difference between two versions of any versioned content, read by `read` (which answers
 * the concept's 404 for a version it lacks): the RFC 6902 patch from `from`'s content to `to`'s, and the
 * two contents (for what else a concept's diff says).
 */
export async function versionDiff<V, C>(range: { from: number; to: number }, read: (n: number) => Promise<V>, contentOf: (v: V) => C) {
  const [a, b] = await Promise.all([read(range.from), read(range.to)]);
  const contents = [contentOf(a), contentOf(b)] as const;
  return { diff: { ...range, patch: jsonPatch(contents[0], contents[1]) }, contents };
}
