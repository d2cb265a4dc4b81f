import { createDb } from "../../db/client";
import type { Bindings } from "../../env";
import { changePreferences } from "../../features/subscribers/change-preferences";
import { preferencesRepository } from "../../features/subscribers/preferences-repository";
import { fromInboxSchedule, type InboxScheduleInput } from "./schedule";

/**
 * The Inbox's `defaultSchedule` (the page's prop, sent with every session): the schedule a
 * subscriber starts with. Stored only while they have none, so a page load never undoes what the
 * subscriber chose in the Inbox or your backend set.
 */
export async function applyDefaultSchedule(
  env: Pick<Bindings, "DB" | "WEBHOOK_QUEUE">,
  environmentId: string,
  subscriberId: string,
  schedule: InboxScheduleInput,
): Promise<void> {
  const stored = await preferencesRepository(createDb(env.DB), environmentId).find(subscriberId);
  if (stored === undefined || stored?.schedule) return;
  await changePreferences(env, environmentId, subscriberId, { schedule: fromInboxSchedule(schedule, null, true) }, "inbox");
}
