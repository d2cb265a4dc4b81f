// Whether a subscriber is a member of a topic, as Novu's v1 topic API answers it: `@novu/node`'s
// `getSubscriber` / `checkSubscriber` and `@novu/api`'s `topics.subscribers.retrieve`. A non-member
// is a 404, which is the answer these calls exist for. Like Novu's v1 listings this route is kept
// out of /openapi.json: /openapi.json documents Clarion's API, where a read of a named resource that
// exists answers 200, and the topic members are read with `GET /v1/topics/{key}/subscribers`.
import { createDb } from "../../db/client";
import { notFound, validationError } from "../../lib/errors";
import { createRouter } from "../../lib/openapi";
import { SubscriberIdParam } from "../subscribers/preferences-schemas";
import { topicsRepository } from "../topics/repository";
import { TopicKeyParam } from "../topics/schemas";

export const novuTopicMemberRoutes = createRouter();

const Params = TopicKeyParam.extend(SubscriberIdParam.shape);

novuTopicMemberRoutes.get("/v1/topics/:key/subscribers/:subscriberId", async (c) => {
  const params = Params.safeParse(c.req.param());
  if (!params.success) throw validationError(params.error.issues);
  const { key, subscriberId } = params.data;
  const environmentId = c.get("environmentId");
  const found = await topicsRepository(createDb(c.env.DB), environmentId).membership(key, subscriberId);
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
});
