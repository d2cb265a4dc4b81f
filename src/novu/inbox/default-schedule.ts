import type { Bindings } from "../../env";
import { changePreferences } from "../../features/subscribers/change-preferences";
import type { Data } from "../../features/data";
import { fromInboxSchedule, type InboxScheduleInput } from "./schedule";

/**
 * The Inbox's `defaultSchedule` (the page's prop, sent with every session): the schedule a
 * subscriber starts with. Stored only while they have none, so a page load never undoes what the
 * subscriber chose in the Inbox or your backend set.
 */
export async function applyDefaultSchedule(
  data: Data,
  env: Pick<Bindings, "WEBHOOK_QUEUE">,
  subscriberId: string,
  schedule: InboxScheduleInput,
): Promise<void> {
  const stored = await data.preferences.find(subscriberId);
  if (stored === undefined || stored?.schedule) return;
  await changePreferences(data, env, subscriberId, { schedule: fromInboxSchedule(schedule, null, true) }, "inbox");
}
