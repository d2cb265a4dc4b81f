// The Topics area's queries, and the writes beside the keys they refresh.
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import { chunks } from "./members";

export type TopicInput = components["schemas"]["TopicInput"];

/** The lists of topics (the page, the pickers): refreshed by every write. */
export const TOPICS = ["topics"] as const;
/** One topic and its members: refreshed by a write to that topic. */
export const topicScope = (key: string) => ["topic", key] as const;

export const topicsQuery = (api: Api) =>
  infiniteQueryOptions({
    queryKey: [...TOPICS, "list"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/topics", { params: { query: { cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

/** The first hundred, for a picker. */
export const topicPickQuery = (api: Api) =>
  queryOptions({
    queryKey: [...TOPICS, "pick"],
    queryFn: () => unwrap(api.GET("/v1/topics", { params: { query: { limit: 100 } } })),
  });

export const topicQuery = (api: Api, key: string) =>
  queryOptions({
    queryKey: topicScope(key),
    queryFn: () => unwrap(api.GET("/v1/topics/{key}", { params: { path: { key } } })),
  });

export const membersQuery = (api: Api, key: string) =>
  infiniteQueryOptions({
    queryKey: [...topicScope(key), "members"],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/topics/{key}/subscribers", { params: { path: { key }, query: { cursor: pageParam, limit: 100 } } })),
    ...CURSOR_PAGES,
  });

export const createTopic = (api: Api, body: TopicInput) => unwrap(api.POST("/v1/topics", { body }));

export const renameTopic = (api: Api, key: string, name: string) =>
  unwrap(api.PUT("/v1/topics/{key}", { params: { path: { key } }, body: { name } }));

export const deleteTopic = (api: Api, key: string) => unwrap(api.DELETE("/v1/topics/{key}", { params: { path: { key } } }));

/** Unknown ids become bare subscribers (the API's rule), so a topic can be filled before profiles arrive. */
export async function addMembers(api: Api, key: string, subscriberIds: string[]) {
  let added = 0;
  let alreadyMembers = 0;
  for (const batch of chunks(subscriberIds)) {
    const r = await unwrap(api.POST("/v1/topics/{key}/subscribers", { params: { path: { key } }, body: { subscriberIds: batch } }));
    added += r.added;
    alreadyMembers += r.alreadyMembers;
  }
  return { added, alreadyMembers };
}

export async function removeMembers(api: Api, key: string, subscriberIds: string[]) {
  let removed = 0;
  for (const batch of chunks(subscriberIds)) {
    const r = await unwrap(api.DELETE("/v1/topics/{key}/subscribers", { params: { path: { key } }, body: { subscriberIds: batch } }));
    removed += r.removed;
  }
  return removed;
}

export const createTopicMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (body: TopicInput) => createTopic(api, body),
    onSuccess: (_topic, _body, _result, { client }) => void client.invalidateQueries({ queryKey: TOPICS }),
  });

/** Deletes the topic: its own entries go (not refetched into a 404), the lists refresh. */
export const deleteTopicMutation = (api: Api, key: string) =>
  mutationOptions({
    mutationFn: () => deleteTopic(api, key),
    onSuccess: (_answer, _v, _result, { client }) => {
      client.removeQueries({ queryKey: topicScope(key) });
      void client.invalidateQueries({ queryKey: TOPICS });
    },
  });

/** Renames the topic; it and the lists are read again before the form closes. */
export const renameTopicMutation = (api: Api, key: string) =>
  mutationOptions({
    mutationFn: (name: string) => renameTopic(api, key, name),
    onSuccess: async (_answer, _name, _result, { client }) => {
      await Promise.all([client.invalidateQueries({ queryKey: topicScope(key) }), client.invalidateQueries({ queryKey: TOPICS })]);
    },
  });

// The members are under the topic's key: one refresh for the count and the list.
export const addMembersMutation = (api: Api, key: string) =>
  mutationOptions({
    mutationFn: (subscriberIds: string[]) => addMembers(api, key, subscriberIds),
    onSuccess: (_answer, _ids, _result, { client }) => client.invalidateQueries({ queryKey: topicScope(key) }),
  });

export const removeMembersMutation = (api: Api, key: string) =>
  mutationOptions({
    mutationFn: (subscriberIds: string[]) => removeMembers(api, key, subscriberIds),
    onSuccess: (_answer, _ids, _result, { client }) => client.invalidateQueries({ queryKey: topicScope(key) }),
  });
