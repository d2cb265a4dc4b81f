import type { components } from "../../api/openapi";

export type Schedule = NonNullable<components["schemas"]["DeliverySchedule"]>;
export type Day = keyof Schedule["days"];
type Hours = NonNullable<Schedule["days"][Day]>["hours"];

export const DAYS: Day[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
export const DAY_LABEL: Record<Day, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};

const OFFICE_HOURS: Hours = [{ start: "09:00", end: "17:00" }];

/** What the Inbox's own switch starts with: weekdays 09:00–17:00. */
export const OFFICE_WEEK: Schedule = {
  enabled: true,
  days: Object.fromEntries(DAYS.slice(0, 5).map((d) => [d, { enabled: true, hours: OFFICE_HOURS }])),
};

/** The schedule as one line: "Mon 09:00–17:00; Sat off", or "no schedule". */
export function describeSchedule(schedule: Schedule | null | undefined): string {
  if (!schedule) return "no schedule";
  const days = DAYS.flatMap((d) => {
    const day = schedule.days[d];
    if (!day) return [];
    const hours = day.enabled && day.hours.length ? day.hours.map((h) => `${h.start}–${h.end}`).join(", ") : "off";
    return [`${DAY_LABEL[d].slice(0, 3)} ${hours}`];
  });
  return `schedule ${schedule.enabled ? "on" : "off"}${days.length ? `: ${days.join("; ")}` : ""}`;
}

/** Compared as the API stores them: days in week order. */
export const sameSchedule = (a: Schedule | null, b: Schedule | null) => JSON.stringify(ordered(a)) === JSON.stringify(ordered(b));

const ordered = (s: Schedule | null) =>
  s && {
    enabled: s.enabled,
    days: DAYS.flatMap((d) => {
      const day = s.days[d];
      return day ? [[d, day.enabled, day.hours.map((h) => [h.start, h.end])]] : [];
    }),
  };
