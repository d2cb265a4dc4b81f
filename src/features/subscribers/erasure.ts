import { eventRow } from "../../db/queries/events";
import { inboxSockets } from "../../durable-objects/inbox-socket/client";
import { TriggerStore } from "../../durable-objects/client/trigger-store";
import { unscopedLogs } from "../../durable-objects/client/unscoped-logs";
import type { Bindings } from "../../env";
import { dispatchEvents } from "../events/record";
import type { Data } from "../data";
import { eraseLogged } from "./erasure-repository";
import type { SubscriberErased } from "./schemas";

/**
 * Erasure of a subscriber (GDPR art. 17). Their steps still waiting are taken out of the
 * objects that park them first, so a failure there leaves the profile in place and the call
 * can be repeated; then one D1 batch removes the profile, channel addresses and topic
 * memberships and redacts the personal data of their messages, keeping each message's status,
 * channel and timestamps for the counts, and of the triggers and stored `Idempotency-Key` answers
 * that name them. Null when the environment has no such subscriber.
 */
export async function eraseSubscriber(data: Data, env: Bindings, subscriberId: string): Promise<SubscriberErased | null> {
  const { environmentId } = data;
  if ((await data.subscribers.internalId(subscriberId)) === undefined) return null;
  // First, so a failure in an object leaves the profile in place and the call can be repeated.
  const waitingStepsCancelled = await new TriggerStore(env).eraseSubscriber(environmentId, subscriberId);
  // Their log messages next, for the same reason (redacting again is harmless).
  const logged = await eraseLogged(unscopedLogs(env), environmentId, subscriberId);
  const deleted = eventRow(environmentId, "subscriber.deleted", { subscriberId });
  const erased = await data.subscriberWrites.erase(subscriberId, deleted, logged);
  // After the profile is gone, so a reconnecting Inbox is refused rather than let back in.
  await inboxSockets(env.INBOX_SOCKETS).close(environmentId, subscriberId);
  await dispatchEvents(env, environmentId, [deleted.id]);
  return { subscriberId, erased: { profile: true, ...erased, waitingStepsCancelled } };
}
