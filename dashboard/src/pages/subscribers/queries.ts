// The Subscribers area's queries, and the writes beside the keys they refresh.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import type { PreferencesUpdate } from "./preferences";
import type { searchFilter } from "./search";

export type Subscriber = components["schemas"]["SubscriberDetail"];
export type SubscriberInput = components["schemas"]["SubscriberInput"];

/** The lists of subscribers (the page, the pickers): refreshed by every write. */
export const SUBSCRIBERS = ["subscribers"] as const;
/** One subscriber and what hangs on it (its activity): refreshed by a write to that subscriber. */
export const subscriberKey = (subscriberId: string) => ["subscriber", subscriberId] as const;
/** Every list of messages in the area, refreshed when a subscriber is erased. */
export const MESSAGES = ["messages"] as const;

export const subscribersQuery = (api: Api, filter: ReturnType<typeof searchFilter>) =>
  infiniteQueryOptions({
    queryKey: [...SUBSCRIBERS, "list", filter],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/subscribers", { params: { query: { ...filter, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

/** The first twenty whose id or name holds `search`, for a picker. */
export const subscriberPickQuery = (api: Api, search: string) =>
  queryOptions({
    queryKey: [...SUBSCRIBERS, "pick", search],
    queryFn: () => unwrap(api.GET("/v1/subscribers", { params: { query: { q: search || undefined, limit: 20 } } })),
  });

export const subscriberQuery = (api: Api, subscriberId: string) =>
  queryOptions({
    queryKey: subscriberKey(subscriberId),
    queryFn: () => unwrap(api.GET("/v1/subscribers/{subscriberId}", { params: { path: { subscriberId } } })),
  });

export const subscriberActivityQuery = (api: Api, subscriberId: string) =>
  infiniteQueryOptions({
    queryKey: [...subscriberKey(subscriberId), "activity"],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET("/v1/subscribers/{subscriberId}/activity", { params: { path: { subscriberId }, query: { cursor: pageParam, limit: 20 } } }),
      ),
    ...CURSOR_PAGES,
  });

export const subscriberMessagesQuery = (api: Api, subscriberId: string) =>
  infiniteQueryOptions({
    queryKey: [...MESSAGES, { subscriberId }],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/messages", { params: { query: { subscriberId, cursor: pageParam, limit: 20 } } })),
    ...CURSOR_PAGES,
  });

/** Whether the id is taken: any answer but a 2xx counts as free (the write that follows reports a real failure). */
export const subscriberTaken = async (api: Api, subscriberId: string) =>
  (await api.GET("/v1/subscribers/{subscriberId}", { params: { path: { subscriberId } } })).response.ok;

/** Creates the subscriber, or updates the fields it names. */
export const upsertSubscriber = (api: Api, body: SubscriberInput) => unwrap(api.POST("/sub", { body }));

export const savePreferences = (api: Api, subscriberId: string, body: PreferencesUpdate) =>
  unwrap(api.PUT("/v1/subscribers/{subscriberId}/preferences", { params: { path: { subscriberId } }, body }));

export const eraseSubscriber = (api: Api, subscriberId: string) =>
  unwrap(api.DELETE("/v1/subscribers/{subscriberId}", { params: { path: { subscriberId } } }));
