import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { subscriberChannels, subscribers } from "../../db/schema";
import { normaliseAddress } from "../../lib/normalise-address";

/** Every address of the subscriber: as the suppression list stores it, and as given (what answers echoed). */
export async function addressesOf(db: Db, environmentId: string, subscriberId: string): Promise<{ normalised: string[]; raw: string[] }> {
  const [profile, channels] = await db.batch([
    db
      .select({ email: subscribers.email, phone: subscribers.phone })
      .from(subscribers)
      .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId))),
    db
      .select({ channel: subscriberChannels.channel, address: subscriberChannels.address })
      .from(subscriberChannels)
      .where(and(eq(subscriberChannels.environmentId, environmentId), eq(subscriberChannels.subscriberId, subscriberId))),
  ]);
  const found = [
    ...profile.flatMap((p) => [p.email && normaliseAddress("email", p.email), p.phone && normaliseAddress("sms", p.phone)]),
    ...channels.map((c) => normaliseAddress(c.channel, c.address)),
  ];
  const given = [...profile.flatMap((p) => [p.email, p.phone]), ...channels.map((c) => c.address)];
  const distinct = (list: (string | null | undefined)[]) => [...new Set(list.filter((a): a is string => Boolean(a)))];
  return { normalised: distinct(found), raw: distinct(given) };
}
