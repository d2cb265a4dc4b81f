// The Integrations area's queries, and the writes beside the keys they refresh.
import { mutationOptions, queryOptions } from "@tanstack/react-query";
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

/** One tenant's integrations (its own sending), in the order delivery tries them before the environment's. */
export const tenantIntegrationsQuery = (api: Api, tenant: string) =>
  queryOptions({
    queryKey: [...INTEGRATIONS, "tenant", tenant],
    queryFn: () => allPages((cursor) => unwrap(api.GET("/v1/integrations", { params: { query: { limit: 100, cursor, tenant } } }))),
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

/** What a form saves: a new integration, or what changed of `integration` (nothing: no request). */
export type IntegrationSave = { create: IntegrationInput } | { integration: Integration; update: IntegrationUpdate };

/**
 * Saves what `build` says (run inside the write, so its input errors show as the write's error);
 * the lists refresh.
 */
export const saveIntegrationMutation = (api: Api, build: () => IntegrationSave) =>
  mutationOptions({
    mutationFn: async () => {
      const save = build();
      if ("create" in save) return createIntegration(api, save.create);
      return Object.keys(save.update).length ? updateIntegration(api, save.integration.id, save.update) : save.integration;
    },
    onSuccess: (_saved, _v, _result, { client }) => void client.invalidateQueries({ queryKey: INTEGRATIONS }),
  });

/** One integration's switches (active, primary); the lists refresh whatever the answer. */
export const updateIntegrationMutation = (api: Api) =>
  mutationOptions({
    mutationFn: ({ id, body }: { id: string; body: IntegrationUpdate }) => updateIntegration(api, id, body),
    onSettled: (_answer, _error, _input, _result, { client }) => client.invalidateQueries({ queryKey: INTEGRATIONS }),
  });

/** New priorities, one integration after another (the order delivery tries them); the lists refresh whatever the answer. */
export const movePrioritiesMutation = (api: Api) =>
  mutationOptions({
    mutationFn: async (changes: { id: string; priority: number }[]) => {
      for (const { id, priority } of changes) await updateIntegration(api, id, { priority });
    },
    onSettled: (_answer, _error, _input, _result, { client }) => client.invalidateQueries({ queryKey: INTEGRATIONS }),
  });

/** Deletes the integration: its own entry goes (not refetched into a 404), the lists refresh. */
export const deleteIntegrationMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: () => deleteIntegration(api, id),
    onSuccess: (_answer, _v, _result, { client }) => {
      client.removeQueries({ queryKey: integrationQuery(api, id).queryKey });
      void client.invalidateQueries({ queryKey: INTEGRATIONS });
    },
  });
