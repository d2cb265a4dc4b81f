import { fieldErrors } from "../../lib/errors";
import { Recipient } from "../../contract/recipients";
import type { DestinationOptions } from "../../lib/destinations";
import { refusedSubscriberDestinations } from "../subscribers/destinations";
import type { TriggerRequest } from "./schemas";

export interface InvalidRecipient {
  index: number;
  subscriberId: string | null;
  /** Set when the recipient is a topic this environment does not have. */
  topic?: string;
  errors: { path: string; message: string }[];
}

const itemsOf = (to: TriggerRequest["to"]) => (Array.isArray(to) ? to : [to]);

/** The topic keys `to` names, before validation: what to look up. */
export function namedTopics(to: TriggerRequest["to"]): string[] {
  return itemsOf(to).flatMap((item) => (typeof item === "object" && typeof item.topic === "string" ? [item.topic] : []));
}

/**
 * Splits `to` into valid recipients (deduplicated) and the invalid ones, reported by position.
 * A topic the environment does not have is invalid: sending to it would reach nobody. An inline
 * subscriber whose chat webhook or push endpoint the destination policy refuses is invalid too.
 */
export function parseRecipients(
  to: TriggerRequest["to"],
  topicExists: (key: string) => boolean,
  destinations: DestinationOptions,
): { valid: Recipient[]; invalid: InvalidRecipient[] } {
  const valid: Recipient[] = [];
  const invalid: InvalidRecipient[] = [];
  const seen = new Set<string>();
  itemsOf(to).forEach((item, index) => {
    const parsed = Recipient.safeParse(item);
    if (!parsed.success) {
      const id = typeof item === "object" && typeof item.subscriberId === "string" ? item.subscriberId : null;
      invalid.push({ index, subscriberId: id, errors: fieldErrors(parsed.error.issues) });
      return;
    }
    const r = parsed.data;
    if (typeof r === "object" && "topic" in r && !topicExists(r.topic)) {
      const errors = [{ path: "topic", message: `No topic "${r.topic}" in this environment.` }];
      invalid.push({ index, subscriberId: null, topic: r.topic, errors });
      return;
    }
    const refused = typeof r === "object" && "subscriberId" in r ? refusedSubscriberDestinations(r, destinations) : [];
    if (refused.length) {
      invalid.push({ index, subscriberId: typeof r === "object" && "subscriberId" in r ? r.subscriberId : null, errors: refused });
      return;
    }
    const identity = typeof r === "string" ? `s:${r}` : "topic" in r ? `t:${r.topic}` : `s:${r.subscriberId}`;
    if (seen.has(identity) && (typeof r === "string" || "topic" in r)) return;
    seen.add(identity);
    valid.push(r);
  });
  return { valid, invalid };
}
