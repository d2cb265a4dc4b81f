// Novu's Inbox filters (query string, count `filters`, bulk bodies) as Clarion's feed filter.
import type { InAppDataClause, InAppFilter } from "../../db/queries/in-app";
import { validationError } from "../../lib/errors";
import { type DataFilter, type DataValue, InboxFilter, type TagsFilter } from "./schemas";

/** Clarion's feed filter, or `null` when no notification can match (Clarion's notifications all have severity `none`). */
export type FeedFilter = InAppFilter | null;

function tagsOf(tags: TagsFilter | undefined): Pick<InAppFilter, "tags" | "tagGroups"> {
  if (tags === undefined) return {};
  if (Array.isArray(tags)) return tags.length ? { tags } : {};
  if ("or" in tags) return tags.or.length ? { tags: tags.or } : {};
  return { tagGroups: tags.and.map((g) => g.or).filter((g) => g.length) };
}

const isGroup = (v: unknown): v is { or: unknown[] } | { and: unknown[] } =>
  typeof v === "object" && v !== null && !Array.isArray(v) && ("or" in v || "and" in v) && Object.keys(v).length === 1;

function clausesOf(path: string[], value: DataValue): InAppDataClause[] {
  if (Array.isArray(value)) return [{ path, anyOf: value }];
  if (value !== null && typeof value === "object") {
    if ("or" in value) return [{ path, anyOf: value.or }];
    return value.and.map((g) => ({ path, anyOf: g.or }));
  }
  return [{ path, anyOf: [value] }];
}

function dataOf(data: DataFilter | undefined): InAppDataClause[] | undefined {
  if (data === undefined) return undefined;
  return Object.entries(data).flatMap(([key, value]) =>
    value !== null && typeof value === "object" && !Array.isArray(value) && !isGroup(value)
      ? Object.entries(value as Record<string, DataValue>).flatMap(([sub, v]) => clausesOf([key, sub], v))
      : clausesOf([key], value as DataValue),
  );
}

export function feedFilterOf(filter: InboxFilter, now: Date): FeedFilter {
  const severities = filter.severity === undefined ? undefined : [filter.severity].flat();
  if (severities && !severities.includes("none")) return null;
  return {
    read: filter.read,
    seen: filter.seen,
    archived: filter.archived,
    ...tagsOf(filter.tags),
    snoozed: filter.snoozed === undefined ? undefined : { value: filter.snoozed, now },
    data: dataOf(filter.data),
    createdGte: filter.createdGte === undefined ? undefined : new Date(filter.createdGte),
    createdLte: filter.createdLte === undefined ? undefined : new Date(filter.createdLte),
  };
}

/** A JSON text the client sent in a string (`data=`, `filters=`), parsed or refused as a 422. */
export function parseJsonParam(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw validationError([{ path: [field], message: "Not valid JSON." }]);
  }
}

export function parseFilter(raw: unknown, path: (string | number)[] = []): InboxFilter {
  const parsed = InboxFilter.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error.issues.map((i) => ({ ...i, path: [...path, ...i.path] })));
  return parsed.data;
}

const flag = (v: string | undefined) => (v === "true" ? true : v === "false" ? false : v);
const moment = (v: string | undefined) => (v === undefined || v === "" || Number.isNaN(Number(v)) ? v : Number(v));

/** The list's filter from its query string: `tags[]=a` (any of), `tags[0][]=a&tags[1][]=b` (AND of OR-groups), `data=<json>`. */
export function filterFromQuery(url: URL): InboxFilter {
  const q = url.searchParams;
  const one = (k: string) => q.get(k) ?? undefined;
  const groups = new Map<number, string[]>();
  for (const [key, value] of q) {
    const group = /^tags\[(\d{1,2})\]\[\]$/.exec(key);
    if (group) groups.set(Number(group[1]), [...(groups.get(Number(group[1])) ?? []), value]);
  }
  const anyOf = q.getAll("tags[]");
  const severities = [...q.getAll("severity[]"), ...q.getAll("severity")];
  const data = one("data");
  const raw = {
    tags: groups.size ? { and: [...groups].sort(([a], [b]) => a - b).map(([, or]) => ({ or })) } : anyOf.length ? anyOf : undefined,
    read: flag(one("read")),
    archived: flag(one("archived")),
    snoozed: flag(one("snoozed")),
    seen: flag(one("seen")),
    data: data === undefined ? undefined : parseJsonParam(data, "data"),
    severity: severities.length === 0 ? undefined : severities.length === 1 ? severities[0] : severities,
    createdGte: moment(one("createdGte")),
    createdLte: moment(one("createdLte")),
  };
  return parseFilter(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
}
