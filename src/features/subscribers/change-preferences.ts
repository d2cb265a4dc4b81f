import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import type { SubscriberPreferences } from "../../contract/preferences";
import type { Bindings } from "../../env";
import { dispatchEvents } from "../events/record";
import type { Data } from "../data";
import type { SubscriberPreferencesUpdate } from "./preferences-schemas";

/**
 * Every preference change goes through here: the preferences API (`api`, also behind `/novu`),
 * the one-click unsubscribe (`one_click`) and the hosted page (`preference_page`). What changed
 * lands on the subscriber's timeline and as `subscriber.updated` with the preferences themselves.
 * `undefined`: no such subscriber.
 */
export async function changePreferences(
  data: Data,
  env: Pick<Bindings, "WEBHOOK_QUEUE">,
  subscriberId: string,
  update: SubscriberPreferencesUpdate,
  reason: PreferenceChangeReason,
): Promise<SubscriberPreferences | null | undefined> {
  const result = await data.preferences.change(subscriberId, update, reason);
  if (!result) return undefined;
  await dispatchEvents(env, data.environmentId, result.eventIds);
  return result.preferences;
}
