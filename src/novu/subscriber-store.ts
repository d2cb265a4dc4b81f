// Subscriber reads and writes in Novu's terms, over Clarion's subscriber feature.
import type { Bindings } from "../env";
import { ApiError, notFound, validationError } from "../lib/errors";
import { SubscriberInput } from "../contract/recipients";
import type { Data } from "../features/data";
import { eraseSubscriber } from "../features/subscribers/erasure";
import { saveSubscriber, saveSubscriberProfile } from "../features/subscribers/save";
import type { SessionProfileWrites } from "../contract/in-app-settings";
import type { Subscriber } from "../features/subscribers/schemas";
import { type NovuSubscriberUpdate, toSubscriberInput, unknownProviders } from "./inputs";
import { type NovuSubscriber, toNovuSubscriber } from "./shapes";

export const subscriberMissing = (id: string) => notFound("subscriber_not_found", `subscriber "${id}"`);

/** Novu's v1 and v2 deletes: erasure as Clarion's own `DELETE /v1/subscribers/{subscriberId}`, in Novu's answer. */
export async function eraseNovuSubscriber(data: Data, env: Bindings, subscriberId: string) {
  if (!(await eraseSubscriber(data, env, subscriberId))) throw subscriberMissing(subscriberId);
  return { data: { acknowledged: true as const, status: "deleted" as const } };
}

const internalId = (data: Data, subscriberId: string) => data.subscribers.internalId(subscriberId);

/** Novu's subscriber for a Clarion one (its internal id looked up); for a stored write's answer. */
export async function asNovu(data: Data, subscriber: Subscriber): Promise<NovuSubscriber> {
  const id = (await internalId(data, subscriber.subscriberId)) ?? subscriber.subscriberId;
  return toNovuSubscriber(data.environmentId, id, subscriber);
}

/** A subscriber as a read shows it: push tokens and webhook URLs masked, as `GET /v1/subscribers/{id}` does. */
export async function readNovuSubscriber(data: Data, subscriberId: string): Promise<NovuSubscriber | null> {
  const [found, id] = await Promise.all([data.subscribers.find(subscriberId), internalId(data, subscriberId)]);
  return found && id ? toNovuSubscriber(data.environmentId, id, found) : null;
}

/** Writes Novu's fields for a subscriber through Clarion's checks and upsert. */
export async function writeNovuSubscriber(
  data: Data,
  env: Bindings,
  subscriberId: string,
  novu: NovuSubscriberUpdate,
): Promise<{ subscriber: NovuSubscriber; created: boolean }> {
  const unsupported = unknownProviders(novu.channels);
  if (unsupported.length) throw new ApiError("validation_failed", "A channel names a provider Clarion does not deliver to.", unsupported);
  const input = SubscriberInput.safeParse(toSubscriberInput(subscriberId, novu));
  if (!input.success) throw validationError(input.error.issues);
  const { subscriber, created } = await saveSubscriber(data, env, input.data);
  return { subscriber: await asNovu(data, subscriber), created };
}

/**
 * The profile an Inbox session sends (`@novu/js` passes the browser's time zone, and whatever the
 * page gives): checked as any write is, then written as `sessionProfileWrites` allows, with reason `inbox`.
 */
export async function writeSessionProfile(
  data: Data,
  env: Bindings,
  subscriberId: string,
  novu: NovuSubscriberUpdate,
  writes: SessionProfileWrites,
): Promise<void> {
  const input = SubscriberInput.safeParse(toSubscriberInput(subscriberId, novu));
  if (!input.success) throw validationError(input.error.issues);
  const { channels: _, ...profile } = input.data;
  await saveSubscriberProfile(data, env, profile, { reason: "inbox", existing: writes === "always" ? "update" : "keep" });
}

/** Novu's update (v1 `PUT`, v2 `PATCH`): only a subscriber that exists, else `subscriber_not_found`. */
export async function updateNovuSubscriber(
  data: Data,
  env: Bindings,
  subscriberId: string,
  novu: NovuSubscriberUpdate,
): Promise<NovuSubscriber> {
  if ((await internalId(data, subscriberId)) === undefined) throw subscriberMissing(subscriberId);
  return (await writeNovuSubscriber(data, env, subscriberId, novu)).subscriber;
}
