import type { SubscriberPreferencesUpdate } from "../subscribers/preferences-schemas";
import { preferencesRepository } from "../subscribers/preferences-repository";
import type { LinkTarget } from "./resolve";
import { pageRepository } from "./repository";

/** Why a preference changed without the team's backend: the hosted pages' two ways. */
export type ChangeReason = "one_click" | "preference_page";

/**
 * Every preference change the hosted pages make goes through here, into the same merge as
 * `PUT /v1/subscribers/{id}/preferences`: the one place a `subscriber.updated` event is to be
 * emitted from once outbound webhooks exist, with `reason`.
 */
export async function changePreferences(target: LinkTarget, update: SubscriberPreferencesUpdate, _reason: ChangeReason) {
  return preferencesRepository(target.db, target.environmentId).merge(target.subscriberId, update);
}

/**
 * What one click turns off: the link's workflow's email, or all email when the workflow says so
 * or the link names no workflow. Null: nothing, the workflow is critical or offers no unsubscribe.
 */
export async function oneClickUpdate(target: LinkTarget): Promise<SubscriberPreferencesUpdate | null> {
  if (target.workflowKey === null) return { channels: { email: false } };
  const workflow = await pageRepository(target.db, target.environmentId).workflow(target.workflowKey);
  // A workflow deleted since the email was sent still gets its opt-out: its key may come back.
  if (!workflow) return { workflows: { [target.workflowKey]: { email: false } } };
  if (workflow.critical || workflow.unsubscribe === "none") return null;
  return workflow.unsubscribe === "email" ? { channels: { email: false } } : { workflows: { [target.workflowKey]: { email: false } } };
}
