import type { SubscriberPreferences as StoredPreferences } from "../contract/preferences";
import type { TenantPreferences } from "../contract/tenants";
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

/** Which level of the resolution order decided a step's channel. */
export type PreferenceLevel = "subscriber_tenant" | "subscriber" | "tenant" | "workflow";

export interface PreferenceInputs {
  /** The subscriber's preferences inside the trigger's tenant. */
  subscriberTenant?: StoredPreferences | null;
  /** The subscriber's own. */
  subscriber: StoredPreferences | null;
  /** The tenant's defaults. */
  tenant?: TenantPreferences | null;
}

/**
 * A subscriber's flag for the workflow's channel: the per-workflow one, else the global one;
 * undefined when neither is set. `optOutsOnly`: a global `true` is the default, which the API
 * stores only sometimes (an update to the value shown is no change) and always shows: it decides
 * nothing, so the same preferences resolve alike whatever their history.
 */
function subscriberFlag(
  prefs: StoredPreferences | null | undefined,
  workflowKey: string,
  channel: Channel,
  optOutsOnly = false,
): boolean | undefined {
  if (!prefs) return undefined;
  const workflows = prefs.workflows;
  const perWorkflow = workflows && Object.hasOwn(workflows, workflowKey) ? workflows[workflowKey]?.[channel] : undefined;
  if (typeof perWorkflow === "boolean") return perWorkflow;
  const global = prefs.channels?.[channel];
  if (optOutsOnly && global === true) return undefined;
  return typeof global === "boolean" ? global : undefined;
}

/** A tenant's default: the workflow turned off, its channel flag, else the tenant's global channel flag. */
function tenantFlag(prefs: TenantPreferences | null | undefined, workflowKey: string, channel: Channel): boolean | undefined {
  if (!prefs) return undefined;
  const workflow = prefs.workflows && Object.hasOwn(prefs.workflows, workflowKey) ? prefs.workflows[workflowKey] : undefined;
  if (workflow?.enabled === false) return false;
  const perWorkflow = workflow?.channels?.[channel];
  if (typeof perWorkflow === "boolean") return perWorkflow;
  const global = prefs.channels?.[channel];
  return typeof global === "boolean" ? global : undefined;
}

/**
 * Whether a step's channel sends, and which level decided: a critical workflow always sends; then
 * the subscriber's preference for the tenant, the subscriber's own, the tenant's defaults; the
 * first that sets a flag decides (of the subscriber's own, an opt-out or a per-workflow flag: to
 * turn on what a tenant turns off, a subscriber sets it for that tenant). Otherwise the workflow's
 * default, which sends.
 */
export function resolvePreference(
  inputs: PreferenceInputs,
  workflowKey: string,
  channel: Channel,
  critical: boolean,
): { allowed: boolean; level: PreferenceLevel | "critical" } {
  if (critical) return { allowed: true, level: "critical" };
  const levels: [PreferenceLevel, boolean | undefined][] = [
    ["subscriber_tenant", subscriberFlag(inputs.subscriberTenant, workflowKey, channel)],
    ["subscriber", subscriberFlag(inputs.subscriber, workflowKey, channel, true)],
    ["tenant", tenantFlag(inputs.tenant, workflowKey, channel)],
  ];
  for (const [level, flag] of levels) if (flag !== undefined) return { allowed: flag, level };
  return { allowed: true, level: "workflow" };
}
