import { fieldErrors } from "../../lib/errors";
import { Recipient } from "../../contract/recipients";
import type { DestinationOptions } from "../../lib/destinations";
import { refusedSubscriberDestinations } from "../subscribers/destinations";
import type { TriggerRequest } from "./schemas";

export interface InvalidRecipient {
  index: number;
  subscriberId: string | null;
  errors: { path: string; message: string }[];
}

/**
 * Splits `to` into valid recipients (deduplicated) and the invalid ones, reported by position. An
 * inline subscriber whose chat webhook or push endpoint the destination policy refuses is invalid.
 */
export function parseRecipients(
  to: TriggerRequest["to"],
  destinations: DestinationOptions,
): { valid: Recipient[]; invalid: InvalidRecipient[] } {
  const list = Array.isArray(to) ? to : [to];
  const valid: Recipient[] = [];
  const invalid: InvalidRecipient[] = [];
  const seen = new Set<string>();
  list.forEach((item, index) => {
    const parsed = Recipient.safeParse(item);
    if (!parsed.success) {
      const id = typeof item === "object" && typeof item.subscriberId === "string" ? item.subscriberId : null;
      invalid.push({ index, subscriberId: id, errors: fieldErrors(parsed.error.issues) });
      return;
    }
    const r = parsed.data;
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
