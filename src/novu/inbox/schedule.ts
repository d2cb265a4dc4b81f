// Novu's Inbox "Schedule" over Clarion's delivery schedule. On the wire (`@novu/js` 3.19's
// Schedule): `{ isEnabled, weeklySchedule: { monday: { isEnabled, hours: [{ start: "09:00 AM",
// end: "05:00 PM" }] }, ... } }`; Clarion keeps `{ enabled, days: { mon: { enabled, hours:
// [{ start: "09:00", end: "17:00" }] } } }`.
import { z } from "@hono/zod-openapi";
import type { DeliverySchedule, ScheduleDay } from "../../contract/preferences";

const NOVU_DAYS = {
  monday: "mon",
  tuesday: "tue",
  wednesday: "wed",
  thursday: "thu",
  friday: "fri",
  saturday: "sat",
  sunday: "sun",
} as const satisfies Record<string, ScheduleDay>;
type NovuDay = keyof typeof NOVU_DAYS;

// The Inbox writes "09:00 AM"; a 24 h "17:00" (and Novu's own docs' "18:00 PM") is read as meant.
const NOVU_TIME = /^(\d{1,2}):([0-5]\d)(?:\s*([AaPp][Mm]))?$/;

/** A Novu time as Clarion's `HH:MM`, or null when it is no time of day. */
export function fromNovuTime(value: string): string | null {
  const match = NOVU_TIME.exec(value.trim());
  if (!match) return null;
  let hour = Number(match[1]);
  const period = match[3]?.toUpperCase();
  if (period === "AM" && hour === 12) hour = 0;
  else if (period === "PM" && hour < 12) hour += 12;
  if (hour > 23 || (period === "AM" && hour > 12)) return null;
  return `${String(hour).padStart(2, "0")}:${match[2]}`;
}

/** Clarion's `HH:MM` as the Inbox's time select shows it ("09:00 AM"). */
export function toNovuTime(hm: string): string {
  const [h = 0, m = 0] = hm.split(":").map(Number);
  const shown = h === 0 ? 12 : h > 12 ? h - 12 : h;
  return `${String(shown).padStart(2, "0")}:${String(m).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`;
}

const NovuTime = z
  .string()
  .max(16)
  .refine((v) => fromNovuTime(v) !== null, "Use a time of day such as 09:00 AM.")
  .openapi({ example: "09:00 AM" });

const NovuTimeRange = z
  .object({ start: NovuTime, end: NovuTime })
  .refine((r) => fromNovuTime(r.start) !== fromNovuTime(r.end), { message: "`start` and `end` must differ.", path: ["end"] });

const NovuDaySchedule = z.object({ isEnabled: z.boolean(), hours: z.array(NovuTimeRange).max(12).optional() });

const NovuWeeklySchedule = z
  .object(
    Object.fromEntries(Object.keys(NOVU_DAYS).map((d) => [d, NovuDaySchedule.optional()])) as Record<
      NovuDay,
      z.ZodOptional<typeof NovuDaySchedule>
    >,
  )
  .openapi("InboxWeeklySchedule");

/** What the Inbox sends: a change of the schedule (`PATCH /v1/inbox/preferences`) or the one to start with (`defaultSchedule`). */
export const InboxScheduleInput = z
  .object({ isEnabled: z.boolean().optional(), weeklySchedule: NovuWeeklySchedule.optional() })
  .openapi("InboxScheduleInput", {
    example: { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: "09:00 AM", end: "05:00 PM" }] } } },
  });
export type InboxScheduleInput = z.infer<typeof InboxScheduleInput>;

export const InboxSchedule = z.object({ isEnabled: z.boolean(), weeklySchedule: NovuWeeklySchedule.optional() }).openapi("InboxSchedule", {
  description: "The subscriber's delivery schedule (Clarion's `preferences.schedule`), in Novu's words and 12 h times.",
});
export type InboxSchedule = z.infer<typeof InboxSchedule>;

/** The stored schedule as the Inbox reads it; none is a schedule turned off. */
export function toInboxSchedule(schedule: DeliverySchedule | null): InboxSchedule {
  if (!schedule) return { isEnabled: false };
  const weeklySchedule = Object.fromEntries(
    Object.entries(NOVU_DAYS).flatMap(([novu, day]) => {
      const stored = schedule.days[day];
      if (!stored) return [];
      const hours = stored.hours.map((h) => ({ start: toNovuTime(h.start), end: toNovuTime(h.end) }));
      return [[novu, { isEnabled: stored.enabled, hours }]];
    }),
  );
  return { isEnabled: schedule.enabled, weeklySchedule };
}

/**
 * The schedule after an Inbox change: a flag or week left out keeps the stored one (the Inbox
 * sends the whole week it shows), and a week given replaces the stored days.
 */
export function fromInboxSchedule(input: InboxScheduleInput, stored: DeliverySchedule | null, enabledByDefault = false): DeliverySchedule {
  const enabled = input.isEnabled ?? stored?.enabled ?? enabledByDefault;
  if (!input.weeklySchedule) return { enabled, days: stored?.days ?? {} };
  const days = Object.fromEntries(
    Object.entries(NOVU_DAYS).flatMap(([novu, day]) => {
      const given = input.weeklySchedule?.[novu as NovuDay];
      if (!given) return [];
      // Refined above: every time parses.
      const hours = (given.hours ?? []).map((h) => ({ start: fromNovuTime(h.start)!, end: fromNovuTime(h.end)! }));
      return [[day, { enabled: given.isEnabled, hours }]];
    }),
  );
  return { enabled, days };
}
