// `@novu/node`'s listings and topic read: Novu v1's page numbers over Clarion's lists. These share
// their method and path with Clarion's own routes, so only a Novu client gets them (`forNovu`).
// A page is an `OFFSET` read of at most 100 rows by key: bounded per call, dearer the deeper it goes.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { notFound, validationError } from "../../lib/errors";
import { createRouter } from "../../lib/openapi";
import { subscribersRepository } from "../subscribers/repository";
import { topicsRepository } from "../topics/repository";
import { MAX_MEMBERS_PER_CALL, type Topic } from "../topics/schemas";
import { forNovu } from "./client";
import { toNovuSubscriber } from "./shapes";

export const novuListsV1Routes = createRouter();

const pageNumber = z.coerce.number().int().min(0).max(1_000_000).default(0);
const pageSize = z.coerce.number().int().min(1).max(100).default(10);

function parsed<T extends z.ZodType>(schema: T, c: Context<AppEnv>): z.infer<T> {
  const result = schema.safeParse(c.req.query());
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

const v1Topic = (environmentId: string, t: Topic) => ({
  _id: t.id,
  _organizationId: environmentId,
  _environmentId: environmentId,
  key: t.key,
  name: t.name,
});

novuListsV1Routes.get(
  "/v1/subscribers",
  forNovu(async (c) => {
    const { page, limit } = parsed(z.object({ page: pageNumber, limit: pageSize }), c);
    const environmentId = c.get("environmentId");
    const found = await subscribersRepository(createDb(c.env.DB), environmentId).atOffset({}, page, limit);
    return c.json(
      {
        page,
        totalCount: found.totalCount,
        pageSize: limit,
        hasMore: found.hasMore,
        data: found.rows.map((s) => toNovuSubscriber(environmentId, s.id, s)),
      },
      200,
    );
  }),
);

novuListsV1Routes.get(
  "/v1/topics",
  forNovu(async (c) => {
    const query = z.object({ page: pageNumber, pageSize, key: z.string().trim().min(1).max(128).optional() });
    const { page, pageSize: size, key } = parsed(query, c);
    const environmentId = c.get("environmentId");
    const found = await topicsRepository(createDb(c.env.DB), environmentId).atOffset({ key }, page, size);
    return c.json({ page, pageSize: size, totalCount: found.totalCount, data: found.rows.map((t) => v1Topic(environmentId, t)) }, 200);
  }),
);

novuListsV1Routes.get(
  "/v1/topics/:key",
  forNovu(async (c) => {
    const key = c.req.param("key") ?? "";
    const environmentId = c.get("environmentId");
    const repo = topicsRepository(createDb(c.env.DB), environmentId);
    const [topic, members] = await Promise.all([repo.find(key), repo.members(key, MAX_MEMBERS_PER_CALL)]);
    if (!topic || !members) throw notFound("topic_not_found", `topic with key "${key}"`);
    // Novu lists every member; Clarion the first 1,000 by subscriberId (`GET /v1/topics/{key}/subscribers` pages through all).
    return c.json({ data: { ...v1Topic(environmentId, topic), subscribers: members.data.map((m) => m.subscriberId) } }, 200);
  }),
);
