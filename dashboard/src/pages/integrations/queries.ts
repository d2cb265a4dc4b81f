// The Integrations area's queries, and the writes beside the keys they refresh.
import { queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { allPages } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type Integration = components["schemas"]["Integration"];
export type Provider = components["schemas"]["Provider"];
export type Channel = Integration["channel"];
export type IntegrationCheck = components["schemas"]["IntegrationCheck"];
export type IntegrationInput = components["schemas"]["IntegrationInput"];
export type IntegrationUpdate = components["schemas"]["IntegrationUpdate"];

export const CHANNELS: Channel[] = ["email", "sms", "push", "chat"];

/** Every query of the area's integrations: refreshed by every write. */
export const INTEGRATIONS = ["integrations"] as const;

/** Providers never change while the Worker runs. */
export const providersQuery = (api: Api) =>
  queryOptions({
    queryKey: ["providers"],
    queryFn: () => unwrap(api.GET("/v1/providers", { params: { query: {} } })),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Every integration of the environment: a handful, so all pages are read to order them per channel. */
export const integrationsQuery = (api: Api) =>
  queryOptions({
    queryKey: [...INTEGRATIONS, "list"],
    queryFn: () => allPages((cursor) => unwrap(api.GET("/v1/integrations", { params: { query: { limit: 100, cursor } } }))),
  });

export const integrationQuery = (api: Api, id: string) =>
  queryOptions({
    queryKey: [...INTEGRATIONS, "one", id],
    queryFn: () => unwrap(api.GET("/v1/integrations/{id}", { params: { path: { id } } })),
  });

export const createIntegration = (api: Api, body: IntegrationInput) => unwrap(api.POST("/v1/integrations", { body }));

export const updateIntegration = (api: Api, id: string, body: IntegrationUpdate) =>
  unwrap(api.PUT("/v1/integrations/{id}", { params: { path: { id } }, body }));

export const deleteIntegration = (api: Api, id: string) => unwrap(api.DELETE("/v1/integrations/{id}", { params: { path: { id } } }));

export const checkIntegration = (api: Api, id: string) => unwrap(api.POST("/v1/integrations/{id}/check", { params: { path: { id } } }));
