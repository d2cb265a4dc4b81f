// Writes of subscriber profiles, shared by `/sub`, `/sub/bulk` and the Novu adapter (`/novu`).
import { SubscriberInput } from "../../contract/recipients";
import { createDb } from "../../db/client";
import { upsertSubscribers } from "../../db/queries/subscribers";
import type { Bindings } from "../../env";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, fieldErrors } from "../../lib/errors";
import { refusedSubscriberDestinations } from "./destinations";
import { mergeDuplicates } from "./merge-duplicates";
import { findSubscriber, maskChannels } from "./repository";
import { dispatchEvents } from "../events/record";
import type { BulkSubscribersResult, Subscriber } from "./schemas";

const destinationRefused = (errors: ReturnType<typeof refusedSubscriberDestinations>) =>
  new ApiError("destination_not_allowed", "A chat webhook or push endpoint is loopback, private, link-local or not https.", errors);

/** Creates or updates one subscriber; throws when a destination is refused. The answer masks push tokens and webhook URLs, as a read does. */
export async function saveSubscriber(
  env: Bindings,
  environmentId: string,
  input: SubscriberInput,
): Promise<{ subscriber: Subscriber; created: boolean }> {
  const refused = refusedSubscriberDestinations(input, destinationOptions(env));
  if (refused.length) throw destinationRefused(refused);
  const db = createDb(env.DB);
  const { outcomes, eventIds } = await upsertSubscribers(db, environmentId, [input]);
  await dispatchEvents(env, environmentId, eventIds);
  const [outcome] = outcomes;
  const stored = await findSubscriber(db, environmentId, input.subscriberId);
  if (!outcome || !stored) throw new Error("subscriber upsert returned no row");
  return { subscriber: { ...stored, channels: maskChannels(stored.channels) }, created: outcome.created };
}

/** Validates and writes each item on its own: one bad item never fails the rest. */
export async function saveSubscribers(env: Bindings, environmentId: string, items: readonly unknown[]): Promise<BulkSubscribersResult> {
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
  const { outcomes, eventIds } = await upsertSubscribers(createDb(env.DB), environmentId, mergeDuplicates(valid));
  await dispatchEvents(env, environmentId, eventIds);
  return {
    created: outcomes.filter((o) => o.created).map((o) => o.subscriberId),
    updated: outcomes.filter((o) => !o.created).map((o) => o.subscriberId),
    failed,
  };
}
