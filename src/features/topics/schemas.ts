import { z } from "@hono/zod-openapi";
import { cursorCodec, rawKey } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";

const TOPIC_KEY = /^[a-z0-9][a-z0-9._:-]{0,127}$/;
export const MAX_MEMBERS_PER_CALL = 1000;

export const TopicInput = z
  .object({
    key: z.string().regex(TOPIC_KEY, "Keys use lowercase letters, digits, '.', '_', ':' and '-' (at most 128)."),
    name: z.string().trim().min(1).max(256),
  })
  .strict()
  .openapi("TopicInput");
export type TopicInput = z.infer<typeof TopicInput>;

export const TopicUpdate = TopicInput.pick({ name: true }).strict().openapi("TopicUpdate");
export type TopicUpdate = z.infer<typeof TopicUpdate>;

export const Topic = z
  .object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Topic");
export type Topic = z.infer<typeof Topic>;

export const TopicWithCount = Topic.extend({ memberCount: z.number().int() }).openapi("TopicWithCount");
export type TopicWithCount = z.infer<typeof TopicWithCount>;

export const TopicKeyParam = z.object({
  key: z.string().openapi({ param: { name: "key", in: "path" }, example: "project:42:watchers" }),
});

export const TopicList = pageOf(Topic).openapi("TopicList");
export type TopicList = z.infer<typeof TopicList>;

export const TopicMembersInput = z
  .object({
    subscriberIds: z
      .array(z.string().trim().min(1).max(256))
      .min(1)
      .max(MAX_MEMBERS_PER_CALL)
      .openapi({ description: `Between 1 and ${MAX_MEMBERS_PER_CALL} subscriberIds; duplicates count once.` }),
  })
  .strict()
  .openapi("TopicMembersInput");
export type TopicMembersInput = z.infer<typeof TopicMembersInput>;

export const TopicMembersAdded = z
  .object({
    added: z.number().int(),
    alreadyMembers: z.number().int(),
    topic: z.string(),
  })
  .openapi("TopicMembersAdded");
export type TopicMembersAdded = z.infer<typeof TopicMembersAdded>;

export const TopicMembersRemoved = z.object({ removed: z.number().int() }).openapi("TopicMembersRemoved");
export type TopicMembersRemoved = z.infer<typeof TopicMembersRemoved>;

export const TopicMember = z.object({ subscriberId: z.string(), addedAt: z.iso.datetime() }).openapi("TopicMember");
export type TopicMember = z.infer<typeof TopicMember>;

export const TopicMemberList = pageOf(TopicMember).openapi("TopicMemberList");
export type TopicMemberList = z.infer<typeof TopicMemberList>;

const TopicKey = z.string().regex(TOPIC_KEY);
const MemberId = z.string().min(1).max(256);
/** Topics by key; before 0.13 the cursor was the key itself. */
export const topicCursor = cursorCodec(z.tuple([TopicKey]), { legacy: rawKey(TopicKey) });
/** A topic's members by subscriberId; before 0.13 the cursor was the subscriberId itself. */
export const memberCursor = cursorCodec(z.tuple([MemberId]), { legacy: rawKey(MemberId) });

export const TopicPageQuery = pageQuery(100, topicCursor);
export const MemberPageQuery = pageQuery(500, memberCursor);
