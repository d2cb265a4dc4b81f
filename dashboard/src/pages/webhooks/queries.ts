import { queryOptions } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type WebhookEndpoint = components["schemas"]["WebhookEndpoint"];
export type WebhookEndpointInput = components["schemas"]["WebhookEndpointInput"];
export type WebhookEndpointUpdate = components["schemas"]["WebhookEndpointUpdate"];
export type WebhookAttempt = components["schemas"]["WebhookAttempt"];
export type EventType = WebhookAttempt["eventType"];
export type AttemptStatus = WebhookAttempt["status"];

/** Every query of the area starts with this key, so a change refreshes what it touches. */
export const WEBHOOKS = ["webhooks"] as const;

export const endpointsQuery = () =>
  queryOptions({
    queryKey: [...WEBHOOKS, "list"],
    queryFn: async () => {
      // A handful per environment: every page is read so the list is whole.
      const all: WebhookEndpoint[] = [];
      let cursor: string | undefined;
      do {
        const page = await unwrap(api.GET("/v1/webhook-endpoints", { params: { query: { limit: 100, cursor } } }));
        all.push(...page.data);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });

export const endpointQuery = (id: string) =>
  queryOptions({
    queryKey: [...WEBHOOKS, "endpoint", id],
    queryFn: () => unwrap(api.GET("/v1/webhook-endpoints/{id}", { params: { path: { id } } })),
  });

/** The secret is asked for only when the person reveals it, and never kept once the page is left. */
export const secretQuery = (id: string) =>
  queryOptions({
    queryKey: [...WEBHOOKS, "secret", id],
    queryFn: () => unwrap(api.GET("/v1/webhook-endpoints/{id}/secret", { params: { path: { id } } })),
    gcTime: 0,
    staleTime: Number.POSITIVE_INFINITY,
  });

export const attemptsQuery = (id: string, status: AttemptStatus | undefined) => ({
  queryKey: [...WEBHOOKS, "attempts", id, status ?? "all"],
  queryFn: ({ pageParam }: { pageParam: string | undefined }) =>
    unwrap(api.GET("/v1/webhook-endpoints/{id}/attempts", { params: { path: { id }, query: { status, cursor: pageParam, limit: 50 } } })),
  ...CURSOR_PAGES,
});

export const createEndpoint = (body: WebhookEndpointInput) => unwrap(api.POST("/v1/webhook-endpoints", { body }));

export const updateEndpoint = (id: string, body: WebhookEndpointUpdate) =>
  unwrap(api.PATCH("/v1/webhook-endpoints/{id}", { params: { path: { id } }, body }));

export const deleteEndpoint = (id: string) => unwrap(api.DELETE("/v1/webhook-endpoints/{id}", { params: { path: { id } } }));

export const rotateSecret = (id: string, overlapHours: number) =>
  unwrap(api.POST("/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id } }, body: { overlapHours } }));

export const sendTest = (id: string) => unwrap(api.POST("/v1/webhook-endpoints/{id}/test", { params: { path: { id } } }));

export const replay = (id: string, body: { since: string; until?: string; onlyFailed: boolean }) =>
  unwrap(api.POST("/v1/webhook-endpoints/{id}/replay", { params: { path: { id } }, body }));

export const eventsQuery = (type: EventType | undefined) => ({
  queryKey: [...WEBHOOKS, "events", type ?? "all"],
  queryFn: ({ pageParam }: { pageParam: string | undefined }) =>
    unwrap(api.GET("/v1/events", { params: { query: { type, cursor: pageParam, limit: 50 } } })),
  ...CURSOR_PAGES,
});

export const resendEvent = (eventId: string) => unwrap(api.POST("/v1/events/{eventId}/resend", { params: { path: { eventId } } }));
