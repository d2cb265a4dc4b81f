import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { allPages, CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type WebhookEndpoint = components["schemas"]["WebhookEndpoint"];
export type WebhookEndpointInput = components["schemas"]["WebhookEndpointInput"];
export type WebhookEndpointUpdate = components["schemas"]["WebhookEndpointUpdate"];
export type WebhookAttempt = components["schemas"]["WebhookAttempt"];
export type EventType = WebhookAttempt["eventType"];
export type AttemptStatus = WebhookAttempt["status"];

/** Every query of the area starts with this key, so a change refreshes what it touches. */
export const WEBHOOKS = ["webhooks"] as const;

export const endpointsQuery = (api: Api) =>
  queryOptions({
    queryKey: [...WEBHOOKS, "list"],
    // A handful per environment: every page is read so the list is whole.
    queryFn: () => allPages((cursor) => unwrap(api.GET("/v1/webhook-endpoints", { params: { query: { limit: 100, cursor } } }))),
  });

export const endpointQuery = (api: Api, id: string) =>
  queryOptions({
    queryKey: [...WEBHOOKS, "endpoint", id],
    queryFn: () => unwrap(api.GET("/v1/webhook-endpoints/{id}", { params: { path: { id } } })),
  });

/** The secret is asked for only when the person reveals it, and never kept once the page is left. */
export const secretQuery = (api: Api, id: string) =>
  queryOptions({
    queryKey: [...WEBHOOKS, "secret", id],
    queryFn: () => unwrap(api.GET("/v1/webhook-endpoints/{id}/secret", { params: { path: { id } } })),
    gcTime: 0,
    staleTime: Number.POSITIVE_INFINITY,
  });

/** An endpoint's attempts, whatever the filter: a replay refreshes them. */
export const attemptsKey = (id: string) => [...WEBHOOKS, "attempts", id] as const;

export const attemptsQuery = (api: Api, id: string, status: AttemptStatus | undefined) =>
  infiniteQueryOptions({
    queryKey: [...attemptsKey(id), status ?? "all"],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/webhook-endpoints/{id}/attempts", { params: { path: { id }, query: { status, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

export const createEndpoint = (api: Api, body: WebhookEndpointInput) => unwrap(api.POST("/v1/webhook-endpoints", { body }));

export const updateEndpoint = (api: Api, id: string, body: WebhookEndpointUpdate) =>
  unwrap(api.PATCH("/v1/webhook-endpoints/{id}", { params: { path: { id } }, body }));

export const deleteEndpoint = (api: Api, id: string) => unwrap(api.DELETE("/v1/webhook-endpoints/{id}", { params: { path: { id } } }));

export const rotateSecret = (api: Api, id: string, overlapHours: number) =>
  unwrap(api.POST("/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id } }, body: { overlapHours } }));

export const sendTest = (api: Api, id: string) => unwrap(api.POST("/v1/webhook-endpoints/{id}/test", { params: { path: { id } } }));

export const replay = (api: Api, id: string, body: { since: string; until?: string; onlyFailed: boolean }) =>
  unwrap(api.POST("/v1/webhook-endpoints/{id}/replay", { params: { path: { id } }, body }));

export const eventsQuery = (api: Api, type: EventType | undefined) =>
  infiniteQueryOptions({
    queryKey: [...WEBHOOKS, "events", type ?? "all"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/events", { params: { query: { type, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

export const resendEvent = (api: Api, eventId: string) =>
  unwrap(api.POST("/v1/events/{eventId}/resend", { params: { path: { eventId } } }));

/** Creates an endpoint; the lists wait for their refresh (the new endpoint's page opens next). */
export const createEndpointMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (input: WebhookEndpointInput) => createEndpoint(api, input),
    onSuccess: (_created, _input, _result, { client }) => client.invalidateQueries({ queryKey: WEBHOOKS }),
  });

export const sendTestMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: () => sendTest(api, id),
    onSuccess: (_answer, _v, _result, { client }) => client.invalidateQueries({ queryKey: WEBHOOKS }),
  });

export const enableEndpointMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: (enabled: boolean) => updateEndpoint(api, id, { enabled }),
    onSuccess: (_answer, _enabled, _result, { client }) => client.invalidateQueries({ queryKey: WEBHOOKS }),
  });

/** Deletes the endpoint: its own entry goes (not refetched into a 404), the lists refresh. */
export const deleteEndpointMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: () => deleteEndpoint(api, id),
    onSuccess: (_answer, _v, _result, { client }) => {
      client.removeQueries({ queryKey: endpointQuery(api, id).queryKey });
      void client.invalidateQueries({ queryKey: WEBHOOKS });
    },
  });

/** A new signing secret: the answer holds both secrets, shown at once without another request. */
export const rotateSecretMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: (overlapHours: number) => rotateSecret(api, id, overlapHours),
    onSuccess: async (rotated, _overlap, _result, { client }) => {
      // Only a replay (an Idempotency-Key, which the dashboard never sends) comes without the secrets.
      if ("secret" in rotated) client.setQueryData(secretQuery(api, id).queryKey, rotated);
      else await client.invalidateQueries({ queryKey: secretQuery(api, id).queryKey });
    },
  });

/** Queues the endpoint's events again; its attempts refresh. */
export const replayMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: (body: { since: string; until?: string; onlyFailed: boolean }) => replay(api, id, body),
    onSuccess: (_answer, _body, _result, { client }) => client.invalidateQueries({ queryKey: attemptsKey(id) }),
  });
