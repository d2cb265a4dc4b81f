/** A subscriber's weekly delivery schedule and quiet hours, as times a message may go. */
import type { DeliverySchedule, ScheduleDay, SubscriberPreferences } from "../contract/preferences";
import type { Channel } from "./steps";
import { instantOf, localParts, quietHoursEnd } from "./local-time";

const DAY_OF_INDEX: readonly ScheduleDay[] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const minutesOf = (hm: string) => {
  const [h, m] = hm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/**
 * When the schedule lets a message go: `now` when it is inside one of the windows, else the start
 * of the next one. A window belongs to the day it starts on, so Monday's 22:00–02:00 covers the
 * first two hours of Tuesday. A schedule turned off, or one with no window at all, holds nothing:
 * a message is never held for a time that does not come.
 */
export function scheduleOpensAt(now: Date, schedule: DeliverySchedule, timeZone: string): Date {
  if (!schedule.enabled) return now;
  const today = localParts(now, timeZone);
  let next: number | null = null;
  // From yesterday (its windows may run past midnight) to a week ahead: every window recurs in that span.
  for (let offset = -1; offset <= 7; offset++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
    const day = schedule.days[DAY_OF_INDEX[date.getUTCDay()]!];
    if (!day?.enabled) continue;
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    for (const { start, end } of day.hours) {
      const [s, e] = [minutesOf(start), minutesOf(end)];
      const opens = instantOf(y, m, d, Math.floor(s / 60), s % 60, timeZone).getTime();
      const closes = instantOf(y, m, d + (e <= s ? 1 : 0), Math.floor(e / 60), e % 60, timeZone).getTime();
      if (opens <= now.getTime() && now.getTime() < closes) return now;
      if (opens > now.getTime() && (next === null || opens < next)) next = opens;
    }
  }
  return next === null ? now : new Date(next);
}

export interface Hold {
  until: Date;
  /** What held the message last: the wait ends when both allow it. */
  reason: "quiet_hours" | "schedule";
}

/**
 * How long a subscriber's settings hold a non-critical message on a channel: past their quiet
 * hours and into their schedule's next window. In-app notifications wait for quiet hours only:
 * the schedule is for channels that reach a person outside the app. Null: it goes now.
 */
export function holdFor(now: Date, prefs: SubscriberPreferences | null, channel: Channel, timeZone: string): Hold | null {
  const quiet = prefs?.quietHours ?? null;
  const schedule = channel === "in_app" ? null : (prefs?.schedule ?? null);
  let at = now;
  let reason: Hold["reason"] | null = null;
  // Each moves `at` only forward, to a time the other may refuse; a few rounds settle any pair.
  for (let round = 0; round < 16; round++) {
    let moved = false;
    const quietEnd = quiet ? quietHoursEnd(at, quiet, timeZone) : null;
    if (quietEnd) [at, reason, moved] = [quietEnd, "quiet_hours", true];
    const opens = schedule ? scheduleOpensAt(at, schedule, timeZone) : at;
    if (opens.getTime() > at.getTime()) [at, reason, moved] = [opens, "schedule", true];
    if (!moved) break;
  }
  return reason ? { until: at, reason } : null;
}
