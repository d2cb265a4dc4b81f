import type { SubscriberPreferences as StoredPreferences } from "../../db/schema";
import { CHANNELS, type Channel } from "../../engine/steps";
import type { SubscriberPreferences } from "./preferences-schemas";

/**
 * Whether a subscriber receives a workflow's message on a channel. Critical workflows ignore
 * opt-outs; a workflow-level flag beats the global one; anything unset means allowed.
 */
export function isChannelAllowed(prefs: StoredPreferences | null, workflowKey: string, channel: Channel, critical: boolean): boolean {
  if (critical || !prefs) return true;
  const workflows = prefs.workflows;
  const perWorkflow = workflows && Object.hasOwn(workflows, workflowKey) ? workflows[workflowKey]?.[channel] : undefined;
  if (typeof perWorkflow === "boolean") return perWorkflow;
  const global = prefs.channels?.[channel];
  return typeof global === "boolean" ? global : true;
}

/** The stored preferences as the API shows them: every global channel flag set, no quiet hours by default. */
export function withDefaults(prefs: StoredPreferences | null): SubscriberPreferences {
  const channels = Object.fromEntries(CHANNELS.map((ch) => [ch, prefs?.channels?.[ch] ?? true])) as Record<Channel, boolean>;
  return { channels, workflows: prefs?.workflows ?? {}, quietHours: prefs?.quietHours ?? null };
}
