// Writes of subscriber profiles, shared by `/sub`, `/sub/bulk` and the Novu adapter (`/novu`).
import { SubscriberInput } from "../../contract/recipients";
import { PROFILE_FIELDS, type SubscriberProfile } from "../../db/queries/subscribers";
import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import type { Bindings } from "../../env";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, fieldErrors } from "../../lib/errors";
import { refusedSubscriberDestinations } from "./destinations";
import { mergeDuplicates } from "./merge-duplicates";
import { maskChannels } from "./repository";
import type { Data } from "../data";
import { dispatchEvents } from "../events/record";
import type { BulkSubscribersResult, Subscriber } from "./schemas";

const destinationRefused = (errors: ReturnType<typeof refusedSubscriberDestinations>) =>
  new ApiError("destination_not_allowed", "A chat webhook or push endpoint is loopback, private, link-local or not https.", errors);

/** Creates or updates one subscriber; throws when a destination is refused. The answer masks push tokens and webhook URLs, as a read does. */
export async function saveSubscriber(
  data: Data,
  env: Bindings,
  input: SubscriberInput,
): Promise<{ subscriber: Subscriber; created: boolean }> {
  const refused = refusedSubscriberDestinations(input, destinationOptions(env));
  if (refused.length) throw destinationRefused(refused);
  const writes = data.subscriberWrites;
  const { outcomes, eventIds } = await writes.upsert([input]);
  await dispatchEvents(env, data.environmentId, eventIds);
  const [outcome] = outcomes;
  const stored = await writes.find(input.subscriberId);
  if (!outcome || !stored) throw new Error("subscriber upsert returned no row");
  return { subscriber: { ...stored, channels: maskChannels(stored.channels) }, created: outcome.created };
}

/** Equal as stored JSON is equal: key order aside. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const other = b as Record<string, unknown>;
  return keys.length === Object.keys(b).length && keys.every((k) => k in other && sameValue((a as Record<string, unknown>)[k], other[k]));
}

/** The fields of `profile` whose value differs from the stored subscriber's, or null when none does. */
function changedProfile(stored: Subscriber, profile: SubscriberProfile): SubscriberProfile | null {
  const changed = PROFILE_FIELDS.filter((f) => profile[f] !== undefined && !sameValue(profile[f], stored[f]));
  return changed.length ? { subscriberId: profile.subscriberId, ...Object.fromEntries(changed.map((f) => [f, profile[f]])) } : null;
}

/**
 * A profile written for someone other than the team's backend (the subscriber's own Inbox session),
 * recorded with `reason`. `keep`: a missing subscriber is created from it and an existing one is
 * never changed. `update`: an existing one also gets the fields that differ. A write that changes
 * nothing writes nothing: no timeline entry, no `subscriber.updated`.
 */
export async function saveSubscriberProfile(
  data: Data,
  env: Bindings,
  profile: SubscriberProfile,
  options: { reason: PreferenceChangeReason; existing: "keep" | "update" },
): Promise<"created" | "updated" | "unchanged"> {
  const { environmentId } = data;
  const writes = data.subscriberWrites;
  let stored = await writes.find(profile.subscriberId);
  if (!stored) {
    const eventId = await writes.createIfMissing(profile, options.reason);
    if (eventId) {
      await dispatchEvents(env, environmentId, [eventId]);
      return "created";
    }
    // Made by another request since the read: it is an existing subscriber now.
    stored = await writes.find(profile.subscriberId);
  }
  if (!stored || options.existing === "keep") return "unchanged";
  const changed = changedProfile(stored, profile);
  if (!changed) return "unchanged";
  const { eventIds } = await writes.upsert([changed], new Date(), options.reason);
  await dispatchEvents(env, environmentId, eventIds);
  return "updated";
}

/** Validates and writes each item on its own: one bad item never fails the rest. */
export async function saveSubscribers(data: Data, env: Bindings, items: readonly unknown[]): Promise<BulkSubscribersResult> {
  const valid: SubscriberInput[] = [];
  const failed: BulkSubscribersResult["failed"] = [];
  const policy = destinationOptions(env);
  items.forEach((item, index) => {
    const parsed = SubscriberInput.safeParse(item);
    const refused = parsed.success ? refusedSubscriberDestinations(parsed.data, policy) : [];
    if (parsed.success && !refused.length) {
      valid.push(parsed.data);
      return;
    }
    const error = parsed.success
      ? destinationRefused(refused)
      : new ApiError("validation_failed", "The subscriber does not match the expected schema.", fieldErrors(parsed.error.issues));
    const id = (item as { subscriberId?: unknown } | null)?.subscriberId;
    failed.push({ index, subscriberId: typeof id === "string" ? id : null, error: error.toProblem() });
  });
  const { outcomes, eventIds } = await data.subscriberWrites.upsert(mergeDuplicates(valid));
  await dispatchEvents(env, data.environmentId, eventIds);
  return {
    created: outcomes.filter((o) => o.created).map((o) => o.subscriberId),
    updated: outcomes.filter((o) => !o.created).map((o) => o.subscriberId),
    failed,
  };
}
