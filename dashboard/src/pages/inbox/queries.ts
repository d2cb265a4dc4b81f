// The Inbox area's one query of its own: the subscriber's HMAC hash, worked out in the browser
// (the environment's settings and the subscriber come from their own areas' queries).
import { queryOptions } from "@tanstack/react-query";
import { contextHash } from "../../../../src/contract/inbox-context";
import { subscriberHash } from "../../../../src/contract/subscriber-hash";

/** A hash never changes for the same secret and subscriber. */
export const subscriberHashQuery = (secret: string, subscriberId: string) =>
  queryOptions({
    queryKey: ["inbox", "hash", secret, subscriberId],
    queryFn: () => subscriberHash(secret, subscriberId),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The `contextHash` of a tenant's Inbox (`context: { tenant }`), as the team's backend computes it. */
export const tenantContextHashQuery = (secret: string, tenant: string) =>
  queryOptions({
    queryKey: ["inbox", "context-hash", secret, tenant],
    queryFn: () => contextHash(secret, { tenant }),
    staleTime: Number.POSITIVE_INFINITY,
  });
