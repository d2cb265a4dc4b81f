import { type DeliverySchedule, type PreferenceChange, SCHEDULE_DAYS, type SubscriberPreferences } from "../../contract/preferences";
import { CHANNELS } from "../../engine/steps";
import type { SubscriberPreferencesUpdate } from "./preferences-schemas";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** RFC 7396, as SQLite's json_patch applies it: objects merge, `null` removes a key, anything else replaces. */
function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** The preferences an update leaves, stored as the merge leaves them. */
export function applyUpdate(stored: SubscriberPreferences | null, update: SubscriberPreferencesUpdate): SubscriberPreferences {
  const { schedule, ...rest } = update;
  const merged = mergePatch((stored ?? {}) as JsonObject, rest as JsonObject) as SubscriberPreferences;
  // A schedule is one setting (the Inbox sends it whole): a day left out of a new one is off, not kept.
  if (schedule === undefined) return merged;
  const { schedule: _old, ...without } = merged;
  return schedule === null ? without : { ...without, schedule: canonical(schedule) };
}

/** Days in week order, fields in one order: the same schedule is stored as the same text, so re-sending it changes nothing. */
const canonical = (schedule: DeliverySchedule): DeliverySchedule => ({
  enabled: schedule.enabled,
  days: Object.fromEntries(
    SCHEDULE_DAYS.flatMap((d) => {
      const day = schedule.days[d];
      return day ? [[d, { enabled: day.enabled, hours: day.hours.map(({ start, end }) => ({ start, end })) }]] : [];
    }),
  ),
});

/**
 * What a subscriber's flags mean, for comparing two of them: an unset channel flag is on, and
 * a workflow with no flag left is the same as no entry.
 */
function meaning(prefs: SubscriberPreferences | null): JsonObject {
  const channels = Object.fromEntries(CHANNELS.map((ch) => [ch, prefs?.channels?.[ch] ?? true]));
  const workflows = Object.fromEntries(Object.entries(prefs?.workflows ?? {}).filter(([, flags]) => Object.keys(flags).length > 0));
  return { channels, workflows } as JsonObject;
}

/** The merge patch that turns `a` into `b` (null removes), or undefined when they are equal. */
function patchBetween(a: Json | undefined, b: Json | undefined): Json | undefined {
  if (isObject(a) && isObject(b)) {
    const entries = [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key): [string, Json][] => {
      const part = patchBetween(a[key], b[key]);
      return part === undefined ? [] : [[key, part]];
    });
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  return b === undefined ? null : b;
}

/**
 * Only what changed between two stored preferences, in the shape of an update (a workflow flag
 * set to null follows the global flag again): what the timeline and `subscriber.updated` show.
 * Null when nothing a send would notice changed.
 */
export function preferenceChange(before: SubscriberPreferences | null, after: SubscriberPreferences): PreferenceChange | null {
  const flags = (patchBetween(meaning(before), meaning(after)) ?? {}) as PreferenceChange;
  // Quiet hours and the schedule change as a whole: half a pair means nothing.
  const [from, to] = [before?.quietHours ?? null, after.quietHours ?? null];
  const quiet = JSON.stringify(from) === JSON.stringify(to) ? flags : { ...flags, quietHours: to };
  const [was, is] = [before?.schedule ?? null, after.schedule ?? null];
  const change = JSON.stringify(was) === JSON.stringify(is) ? quiet : { ...quiet, schedule: is };
  return Object.keys(change).length ? change : null;
}
