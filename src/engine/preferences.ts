import type { SubscriberPreferences as StoredPreferences } from "../contract/preferences";
import type { Channel } from "./steps";

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
