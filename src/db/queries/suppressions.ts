import { and, eq, sql } from "drizzle-orm";
import { inJsonList } from "../batch";
import type { Db } from "../client";
import { subscriberChannels, subscribers, suppressions, type SuppressionReason } from "../schema";
import { normaliseAddress } from "../../lib/normalise-address";

// The suppression list as delivery and status webhooks use it; the API's view is in
// features/suppressions.

export interface SuppressionInput {
  environmentId: string;
  channel: string;
  address: string;
  reason: SuppressionReason;
  provider?: string | null;
  messageId?: string | null;
  at: Date;
}

/** Puts an address on the list; one already there keeps its first reason and time. */
export const suppressStatement = (db: Db, input: SuppressionInput) =>
  db
    .insert(suppressions)
    .values({
      environmentId: input.environmentId,
      address: normaliseAddress(input.channel, input.address),
      channel: input.channel,
      reason: input.reason,
      provider: input.provider ?? null,
      messageId: input.messageId ?? null,
      createdAt: input.at,
    })
    .onConflictDoNothing();

/**
 * The suppressed addresses among some subscribers' emails, phones, push tokens and chat webhooks,
 * as two reads that join a delivery phase's batch (the ids are one bound parameter, however many). Subscriber phones are E.164 already (the API
 * checks them) and emails are compared lower-cased, as the list stores them.
 */
export function suppressedAddressRead(db: Db, environmentId: string, subscriberIds: readonly string[]) {
  const ids = inJsonList(subscriberIds);
  // One statement for both: the profiles' email and phone, and their push and chat addresses.
  return db
    .select({ address: suppressions.address })
    .from(suppressions)
    .innerJoin(
      subscribers,
      and(
        eq(subscribers.environmentId, suppressions.environmentId),
        sql`(${suppressions.address} = lower(${subscribers.email}) or ${suppressions.address} = ${subscribers.phone})`,
      ),
    )
    .where(and(eq(suppressions.environmentId, environmentId), sql`${subscribers.subscriberId} in ${ids}`))
    .unionAll(
      db
        .select({ address: suppressions.address })
        .from(suppressions)
        .innerJoin(
          subscriberChannels,
          and(eq(subscriberChannels.environmentId, suppressions.environmentId), eq(subscriberChannels.address, suppressions.address)),
        )
        .where(and(eq(suppressions.environmentId, environmentId), sql`${subscriberChannels.subscriberId} in ${ids}`)),
    );
}
