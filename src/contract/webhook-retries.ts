// The event-webhook retry schedule, with no imports: the delivery consumer follows it and the
// dashboard's Webhooks page states it, so the page cannot promise another schedule.

/** Seconds before each retry (Svix's schedule): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 8 attempts in all. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;

/** The schedule for people: "8 attempts over about 28 hours" (the first attempt and one per retry). */
export function retrySchedulePhrase(): string {
  const seconds = RETRY_SCHEDULE_SECONDS.reduce((sum, s) => sum + s, 0);
  return `${RETRY_SCHEDULE_SECONDS.length + 1} attempts over about ${Math.round(seconds / 3600)} hours`;
}
