// The Subscribers area's queries, and the writes beside the keys they refresh.
import { infiniteQueryOptions, mutationOptions, type QueryClient, queryOptions } from "@tanstack/react-query";
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

export const savePreferences = (api: Api, subscriberId: string, body: PreferencesUpdate, tenant?: string) =>
  unwrap(api.PUT("/v1/subscribers/{subscriberId}/preferences", { params: { path: { subscriberId }, query: { tenant } }, body }));

/** The subscriber's preferences inside one tenant: they beat their own for that tenant's messages. */
export const tenantPreferencesQuery = (api: Api, subscriberId: string, tenant: string) =>
  queryOptions({
    queryKey: [...subscriberKey(subscriberId), "tenant-preferences", tenant],
    queryFn: () => unwrap(api.GET("/v1/subscribers/{subscriberId}/preferences", { params: { path: { subscriberId }, query: { tenant } } })),
  });

export const eraseSubscriber = (api: Api, subscriberId: string) =>
  unwrap(api.DELETE("/v1/subscribers/{subscriberId}", { params: { path: { subscriberId } } }));

/** The subscriber's cached detail with the preferences a write answered, then read again. */
function storePreferences(client: QueryClient, subscriberId: string, saved: Subscriber["preferences"]) {
  client.setQueryData<Subscriber>(subscriberKey(subscriberId), (old) => (old ? { ...old, preferences: saved } : old));
  return client.invalidateQueries({ queryKey: subscriberKey(subscriberId) });
}

/** Saves part of the preferences (channels, workflows, quiet hours, or the schedule); with `tenant`, those inside that tenant. */
export const savePreferencesMutation = (api: Api, subscriberId: string, tenant?: string) =>
  mutationOptions({
    mutationFn: (body: PreferencesUpdate) => savePreferences(api, subscriberId, body, tenant),
    onSuccess: (saved, _body, _result, { client }) => {
      if (!tenant) return storePreferences(client, subscriberId, saved);
      const key = tenantPreferencesQuery(api, subscriberId, tenant).queryKey;
      client.setQueryData(key, saved);
      return client.invalidateQueries({ queryKey: key });
    },
  });

/** Saves the profile; the subscriber and the lists are read again before the editor closes. */
export const saveProfileMutation = (api: Api, subscriberId: string) =>
  mutationOptions({
    mutationFn: (body: SubscriberInput) => upsertSubscriber(api, body),
    onSuccess: async (_saved, _body, _result, { client }) => {
      await client.invalidateQueries({ queryKey: subscriberKey(subscriberId) });
      await client.invalidateQueries({ queryKey: SUBSCRIBERS });
    },
  });

/** The id asked for is a subscriber already: creating it would overwrite their profile. */
export class SubscriberTaken extends Error {}

/** Creates a subscriber, refusing an id already taken (POST /sub would update it). */
export const createSubscriberMutation = (api: Api) =>
  mutationOptions({
    mutationFn: async (input: { subscriberId: string }) => {
      if (await subscriberTaken(api, input.subscriberId)) throw new SubscriberTaken(input.subscriberId);
      return upsertSubscriber(api, input);
    },
    onSuccess: (_created, _input, _result, { client }) => client.invalidateQueries({ queryKey: SUBSCRIBERS }),
  });

/** Erases the subscriber: their cached detail goes (not refetched into a 404); the lists and messages refresh. */
export const eraseSubscriberMutation = (api: Api, subscriberId: string) =>
  mutationOptions({
    mutationFn: () => eraseSubscriber(api, subscriberId),
    onSuccess: (_erased, _v, _result, { client }) => {
      client.removeQueries({ queryKey: subscriberKey(subscriberId) });
      void client.invalidateQueries({ queryKey: SUBSCRIBERS });
      void client.invalidateQueries({ queryKey: MESSAGES });
    },
  });
