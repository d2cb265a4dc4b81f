import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import type { Bindings } from "../../env";
import { changePreferences as recordedChange } from "../subscribers/change-preferences";
import type { SubscriberPreferencesUpdate } from "../subscribers/preferences-schemas";
import type { LinkTarget } from "./resolve";

/** Why a preference changed without the team's backend: the hosted pages' two ways. */
export type ChangeReason = Extract<PreferenceChangeReason, "one_click" | "preference_page">;

/**
 * Every preference change the hosted pages make goes through here, into the same change as
 * `PUT /v1/subscribers/{id}/preferences`: recorded on the subscriber's timeline with `reason` and
 * emitted as `subscriber.updated`, in the batch that writes it. A tenant's link changes the
 * subscriber's preferences inside the tenant (not on the timeline).
 */
export async function changePreferences(
  env: Pick<Bindings, "WEBHOOK_QUEUE">,
  target: LinkTarget,
  update: SubscriberPreferencesUpdate,
  reason: ChangeReason,
) {
  if (target.tenantId !== null) {
    // A tenant's link changes the subscriber's preferences inside that tenant only.
    const scoped = await target.data.tenantPreferences.change(target.subscriberId, target.tenantId, update);
    return scoped.status === "ok" ? scoped.preferences : undefined;
  }
  return recordedChange(target.data, env, target.subscriberId, update, reason);
}

/** What one click turns off, and the name of the workflow the link came from (null: none, or a backend's link). */
export interface OneClick {
  update: SubscriberPreferencesUpdate | null;
  workflowName: string | null;
}

/**
 * What one click turns off: the link's workflow's email, or all email when the workflow says so
 * or the link names no workflow. `update` null: nothing, the workflow is critical or offers no unsubscribe.
 */
export async function oneClick(target: LinkTarget): Promise<OneClick> {
  if (target.workflowKey === null) return { update: { channels: { email: false } }, workflowName: null };
  const workflow = await target.data.preferencePages.workflow(target.workflowKey);
  // A workflow deleted since the email was sent still gets its opt-out: its key may come back.
  if (!workflow) return { update: { workflows: { [target.workflowKey]: { email: false } } }, workflowName: target.workflowKey };
  const workflowName = workflow.name;
  if (workflow.critical || workflow.unsubscribe === "none") return { update: null, workflowName };
  const update =
    workflow.unsubscribe === "email" ? { channels: { email: false } } : { workflows: { [target.workflowKey]: { email: false } } };
  return { update, workflowName };
}
