import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../client";
import { topicMembers } from "../schema";

/**
 * One page of a topic's member ids in subscriberId order, after `after` (exclusive).
 * For fan-out: keyset pagination stays cheap on the primary key however large the topic.
 */
export async function topicMemberIds(
  db: Db,
  environmentId: string,
  topicKey: string,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .select({ subscriberId: topicMembers.subscriberId })
    .from(topicMembers)
    .where(
      and(
        eq(topicMembers.environmentId, environmentId),
        eq(topicMembers.topicKey, topicKey),
        after !== null ? gt(topicMembers.subscriberId, after) : undefined,
      ),
    )
    .orderBy(asc(topicMembers.subscriberId))
    .limit(limit);
  return rows.map((row) => row.subscriberId);
}
