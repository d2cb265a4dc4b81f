/** Wall-clock arithmetic in a subscriber's IANA time zone, with Intl only (Workers have no tz database of their own). */

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: Weekday;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      weekday: "short",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** A valid IANA zone, or UTC when the subscriber has none or an unknown one. */
export function zoneOf(timezone: string | null | undefined): string {
  if (!timezone) return "UTC";
  try {
    formatter(timezone);
    return timezone;
  } catch {
    return "UTC";
  }
}

export function localParts(at: Date, timeZone: string): LocalParts {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: String(parts.weekday).toLowerCase().slice(0, 3) as Weekday,
  };
}

/** The instant at which the zone's clock shows the given local date and time (DST gaps resolve forward). */
export function instantOf(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): Date {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  let at = guess;
  // Two corrections settle any offset, including the day a DST change happens.
  for (let i = 0; i < 2; i++) {
    const p = localParts(new Date(at), timeZone);
    const shown = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
    at += guess - shown;
  }
  return new Date(at);
}

const parseHm = (hm: string) => {
  const [h, m] = hm.split(":").map(Number);
  return { hour: h ?? 0, minute: m ?? 0 };
};

/** The next instant (after `now`) at which it is `hh:mm` on one of `days` in the zone. */
export function nextLocalTime(now: Date, hm: string, timeZone: string, days?: readonly Weekday[]): Date {
  const { hour, minute } = parseHm(hm);
  const today = localParts(now, timeZone);
  for (let offset = 0; offset <= 8; offset++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
    const candidate = instantOf(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, minute, timeZone);
    if (candidate.getTime() <= now.getTime()) continue;
    if (!days || days.includes(localParts(candidate, timeZone).weekday)) return candidate;
  }
  return new Date(now.getTime() + 7 * 24 * 3_600_000);
}

/** When the subscriber's quiet hours end, if `now` is inside them (they may span midnight); otherwise null. */
export function quietHoursEnd(now: Date, quiet: { start: string; end: string }, timeZone: string): Date | null {
  const local = localParts(now, timeZone);
  const minutes = local.hour * 60 + local.minute;
  const start = parseHm(quiet.start);
  const end = parseHm(quiet.end);
  const s = start.hour * 60 + start.minute;
  const e = end.hour * 60 + end.minute;
  const inside = s < e ? minutes >= s && minutes < e : minutes >= s || minutes < e;
  return inside ? nextLocalTime(now, quiet.end, timeZone) : null;
}
