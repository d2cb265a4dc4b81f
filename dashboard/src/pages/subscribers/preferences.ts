import type { components } from "../../api/openapi";

export type Preferences = components["schemas"]["SubscriberPreferences"];
export type PreferencesUpdate = components["schemas"]["SubscriberPreferencesUpdate"];
export type Channel = keyof Preferences["channels"];
export type Overrides = Preferences["workflows"];
type WorkflowUpdate = NonNullable<PreferencesUpdate["workflows"]>[string];

export const CHANNELS: Channel[] = ["email", "sms", "push", "chat", "in_app"];
export const CHANNEL_LABEL: Record<Channel, string> = { email: "Email", sms: "SMS", push: "Push", chat: "Chat", in_app: "In-app" };

/**
 * The update that turns `before` into the edited overrides. The API merges (json_patch), so a
 * workflow left without any flag is sent as `null`, a flag taken off as `null`, and workflows
 * nobody touched are left out.
 */
export function overridesUpdate(before: Overrides, after: Overrides): Record<string, WorkflowUpdate> {
  const update: Record<string, WorkflowUpdate> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key] ?? {};
    const now = after[key] ?? {};
    if (CHANNELS.every((ch) => was[ch] === now[ch])) continue;
    if (CHANNELS.every((ch) => now[ch] === undefined)) {
      update[key] = null;
      continue;
    }
    const flags: NonNullable<WorkflowUpdate> = {};
    for (const ch of CHANNELS) {
      if (now[ch] !== undefined) flags[ch] = now[ch];
      else if (was[ch] !== undefined) flags[ch] = null;
    }
    update[key] = flags;
  }
  return update;
}
