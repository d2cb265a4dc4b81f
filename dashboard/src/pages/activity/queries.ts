// The Activity area's queries, and the writes beside the keys they refresh. Everything here is
// asked for again every couple of seconds while on screen (live.tsx).
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import { type Filters, messageQuery, triggerQuery } from "./filters";

type TriggerRequest = components["schemas"]["TriggerRequest"];
type BroadcastRequest = components["schemas"]["BroadcastRequest"];
type StatsQuery = { since: string; bucket: "hour" | "day"; groupBy: "channel" | "provider" };

/** Every query of the area: a cancel refreshes all of them. */
export const ACTIVITY = ["activity"] as const;

export const messagesQuery = (api: Api, filters: Filters) =>
  infiniteQueryOptions({
    queryKey: [...ACTIVITY, "messages", filters],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/messages", { params: { query: { ...messageQuery(filters), cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

export const triggersQuery = (api: Api, filters: Filters) =>
  infiniteQueryOptions({
    queryKey: [...ACTIVITY, "triggers", filters],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/triggers", { params: { query: { ...triggerQuery(filters), cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

export const triggerStatusQuery = (api: Api, transactionId: string) =>
  queryOptions({
    queryKey: [...ACTIVITY, "trigger", transactionId],
    queryFn: () => unwrap(api.GET("/v1/trigger/{transactionId}", { params: { path: { transactionId } } })),
  });

/** Its recipients' runs, a page of recipients at a time (a trigger may have thousands). */
export const triggerRunsQuery = (api: Api, transactionId: string) =>
  infiniteQueryOptions({
    queryKey: [...ACTIVITY, "trigger-runs", transactionId],
    queryFn: async ({ pageParam }) =>
      (
        await unwrap(
          api.GET("/v1/trigger/{transactionId}", { params: { path: { transactionId }, query: { cursor: pageParam, limit: 50 } } }),
        )
      ).runs,
    ...CURSOR_PAGES,
  });

export const messageDetailQuery = (api: Api, id: string) =>
  queryOptions({
    queryKey: [...ACTIVITY, "message", id],
    queryFn: () => unwrap(api.GET("/v1/messages/{id}", { params: { path: { id } } })),
  });

/** `span` back from the moment the query runs; only `tenant`'s messages when one is given. */
export const statsQuery = (api: Api, span: number, bucket: StatsQuery["bucket"], groupBy: StatsQuery["groupBy"], tenant?: string) =>
  queryOptions({
    queryKey: [...ACTIVITY, "stats", groupBy, span, bucket, tenant ?? null],
    queryFn: () =>
      unwrap(
        api.GET("/v1/messages/stats", {
          params: { query: { since: new Date(Date.now() - span).toISOString(), bucket, groupBy, ...(tenant ? { tenant } : {}) } },
        }),
      ),
  });

export const cancelTrigger = (api: Api, transactionId: string) =>
  unwrap(api.DELETE("/v1/trigger", { params: { query: { transactionId } } }));

export const trigger = (api: Api, body: TriggerRequest) => unwrap(api.POST("/v1/trigger", { body }));

export const broadcast = (api: Api, body: BroadcastRequest) => unwrap(api.POST("/v1/trigger/broadcast", { body }));

/** Cancels what of a trigger is still to come; the activity refreshes. */
export const cancelTriggerMutation = (api: Api, transactionId: string) =>
  mutationOptions({
    mutationFn: () => cancelTrigger(api, transactionId),
    onSuccess: (_answer, _v, _result, { client }) => client.invalidateQueries({ queryKey: ACTIVITY }),
  });
