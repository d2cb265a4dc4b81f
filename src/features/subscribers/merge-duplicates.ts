import type { SubscriberInput } from "../../contract/recipients";

/**
 * One input per subscriberId, at the place of its first occurrence: a later item's fields
 * override the earlier ones field by field (channels per channel kind), and fields it leaves
 * out keep the earlier item's value, as two `/sub` calls in a row would.
 */
export function mergeDuplicates(inputs: readonly SubscriberInput[]): SubscriberInput[] {
  const merged = new Map<string, SubscriberInput>();
  for (const input of inputs) {
    const earlier = merged.get(input.subscriberId);
    if (!earlier) {
      merged.set(input.subscriberId, input);
      continue;
    }
    const channels = earlier.channels || input.channels ? { ...earlier.channels, ...input.channels } : undefined;
    merged.set(input.subscriberId, { ...earlier, ...input, ...(channels ? { channels } : {}) });
  }
  return [...merged.values()];
}
