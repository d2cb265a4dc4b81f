import { DURATION } from "./steps";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface DurationParts {
  sign: 1 | -1;
  years: number;
  months: number;
  /** Weeks, days, hours, minutes and seconds: exact lengths in UTC. */
  fixedMs: number;
}

function parseParts(value: string): DurationParts | null {
  const match = DURATION.exec(value);
  if (!match) return null;
  const n = (group: string | undefined) => (group ? Number.parseFloat(group) : 0);
  const parts: DurationParts = {
    sign: value.startsWith("-") ? -1 : 1,
    years: n(match[1]),
    months: n(match[2]),
    fixedMs: n(match[3]) * 7 * DAY + n(match[4]) * DAY + n(match[6]) * HOUR + n(match[7]) * MINUTE + Math.round(n(match[8]) * SECOND),
  };
  return [parts.years, parts.months, parts.fixedMs].every(Number.isFinite) ? parts : null;
}

/**
 * Moves `from` by an ISO 8601 duration. Years and months follow the calendar (UTC), clamped to the
 * month's last day so that Jan 31 + P1M is Feb 28/29 rather than spilling into March.
 */
export function addDuration(from: Date, value: string): Date | null {
  const parts = parseParts(value);
  if (!parts) return null;
  const at = new Date(from.getTime());
  const monthShift = parts.sign * (parts.years * 12 + parts.months);
  if (monthShift !== 0) {
    const day = at.getUTCDate();
    at.setUTCDate(1);
    at.setUTCMonth(at.getUTCMonth() + monthShift);
    const lastDay = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
    at.setUTCDate(Math.min(day, lastDay));
  }
  const result = new Date(at.getTime() + parts.sign * parts.fixedMs);
  return Number.isNaN(result.getTime()) ? null : result;
}

/**
 * An ISO 8601 duration in milliseconds (negative for `-P...`), or null when it is not one.
 * Without `anchor`, a month counts 30 days and a year 365 days; with it, they follow the calendar from there.
 */
export function parseDuration(value: string, anchor?: Date): number | null {
  if (anchor) {
    const moved = addDuration(anchor, value);
    return moved ? moved.getTime() - anchor.getTime() : null;
  }
  const parts = parseParts(value);
  if (!parts) return null;
  const ms = parts.sign * (parts.years * 365 * DAY + parts.months * 30 * DAY + parts.fixedMs);
  return Number.isFinite(ms) ? ms : null;
}
