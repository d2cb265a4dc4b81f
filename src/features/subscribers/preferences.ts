import type { SubscriberPreferences as StoredPreferences } from "../../contract/preferences";
import { CHANNELS, type Channel } from "../../engine/steps";
import type { SubscriberPreferences } from "./preferences-schemas";

/** The stored preferences as the API shows them: every global channel flag set, no quiet hours or schedule by default. */
export function withDefaults(prefs: StoredPreferences | null): SubscriberPreferences {
  const channels = Object.fromEntries(CHANNELS.map((ch) => [ch, prefs?.channels?.[ch] ?? true])) as Record<Channel, boolean>;
  return { channels, workflows: prefs?.workflows ?? {}, quietHours: prefs?.quietHours ?? null, schedule: prefs?.schedule ?? null };
}
