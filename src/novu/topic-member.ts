// Whether a subscriber is a member of a topic, as Novu's v1 topic API answers it: `@novu/node`'s
// `getSubscriber` / `checkSubscriber` and `@novu/api`'s `topics.subscribers.retrieve`. A non-member
// is a 404, which is the answer these calls exist for.
import { z } from "@hono/zod-openapi";
import { notFound } from "../lib/errors";
import { createRouter, json } from "../lib/openapi";
import { SubscriberIdParam } from "../features/subscribers/preferences-schemas";
import { TopicKeyParam } from "../features/topics/schemas";
import { novuRoute } from "./routing";
import { envelope } from "./shapes";

export const novuTopicMemberRoutes = createRouter();

const NovuTopicMember = z
  .object({
    _organizationId: z.string(),
    _environmentId: z.string(),
    _subscriberId: z.string(),
    _topicId: z.string(),
    topicKey: z.string(),
    externalSubscriberId: z.string(),
  })
  .openapi("NovuTopicMember");

novuTopicMemberRoutes.openapi(
  novuRoute({
    method: "get",
    path: "/v1/topics/{key}/subscribers/{subscriberId}",
    summary: "Check a topic member (Novu)",
    description: "404 `subscriber_not_found` when the subscriber is not a member of the topic.",
    request: { params: TopicKeyParam.extend(SubscriberIdParam.shape) },
    responses: { 200: { description: "The membership", content: json(envelope(NovuTopicMember)) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { key, subscriberId } = c.req.valid("param");
    const { environmentId } = c.var.data;
    const found = await c.var.data.topicMembers.membership(key, subscriberId);
    if (!found) throw notFound("subscriber_not_found", `subscriber "${subscriberId}" in topic "${key}"`);
    const data = {
      _organizationId: environmentId,
      _environmentId: environmentId,
      _subscriberId: found.subscriberInternalId,
      _topicId: found.topicId,
      topicKey: key,
      externalSubscriberId: subscriberId,
    };
    return c.json({ data }, 200);
  },
);
