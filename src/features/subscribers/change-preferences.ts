import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import { createDb } from "../../db/client";
import type { SubscriberPreferences } from "../../contract/preferences";
import type { Bindings } from "../../env";
import { dispatchEvents } from "../events/record";
import { preferencesRepository } from "./preferences-repository";
import type { SubscriberPreferencesUpdate } from "./preferences-schemas";

/**
 * Every preference change goes through here: the preferences API (`api`, also behind `/novu`),
 * the one-click unsubscribe (`one_click`) and the hosted page (`preference_page`). What changed
 * lands on the subscriber's timeline and as `subscriber.updated` with the preferences themselves.
 * `undefined`: no such subscriber.
 */
export async function changePreferences(
  env: Pick<Bindings, "DB" | "WEBHOOK_QUEUE">,
  environmentId: string,
  subscriberId: string,
  update: SubscriberPreferencesUpdate,
  reason: PreferenceChangeReason,
): Promise<SubscriberPreferences | null | undefined> {
  const result = await preferencesRepository(createDb(env.DB), environmentId).change(subscriberId, update, reason);
  if (!result) return undefined;
  await dispatchEvents(env, environmentId, result.eventIds);
  return result.preferences;
}
