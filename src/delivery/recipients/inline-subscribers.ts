import type { SubscriberInput } from "../../contract/recipients";
import type { TriggerRecord } from "../../jobs/trigger-record";

const isSubscriberInput = (value: unknown): value is SubscriberInput =>
  typeof value === "object" && value !== null && typeof (value as { subscriberId?: unknown }).subscriberId === "string";

/** Subscribers given as objects in `to` or `actor`: they are upserted before the trigger runs. */
export const inlineSubscribers = (record: TriggerRecord): SubscriberInput[] => {
  const given: unknown[] = [...record.recipients, record.actor];
  return given.filter(isSubscriberInput);
};
