// The Inbox area's one query of its own: the subscriber's HMAC hash, worked out in the browser
// (the environment's settings and the subscriber come from their own areas' queries).
import { queryOptions } from "@tanstack/react-query";
import { subscriberHash } from "../../../../src/contract/subscriber-hash";

/** A hash never changes for the same secret and subscriber. */
export const subscriberHashQuery = (secret: string, subscriberId: string) =>
  queryOptions({
    queryKey: ["inbox", "hash", secret, subscriberId],
    queryFn: () => subscriberHash(secret, subscriberId),
    staleTime: Number.POSITIVE_INFINITY,
  });
