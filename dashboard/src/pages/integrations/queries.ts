import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type Integration = components["schemas"]["Integration"];
export type Provider = components["schemas"]["Provider"];
export type Channel = Integration["channel"];
export type IntegrationCheck = components["schemas"]["IntegrationCheck"];
export type IntegrationUpdate = components["schemas"]["IntegrationUpdate"];

export const CHANNELS: Channel[] = ["email", "sms", "push", "chat"];

/** Providers never change while the Worker runs. */
export const useProviders = () =>
  useQuery({
    queryKey: ["providers"],
    queryFn: () => unwrap(api.GET("/v1/providers", { params: { query: {} } })),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Every integration of the environment: a handful, so all pages are read to order them per channel. */
export const useIntegrations = () =>
  useQuery({
    queryKey: ["integrations"],
    queryFn: async () => {
      const all: Integration[] = [];
      let cursor: string | undefined;
      do {
        const page = await unwrap(api.GET("/v1/integrations", { params: { query: { limit: 100, cursor } } }));
        all.push(...page.data);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });

export const useIntegration = (id: string) =>
  useQuery({
    queryKey: ["integrations", id],
    queryFn: () => unwrap(api.GET("/v1/integrations/{id}", { params: { path: { id } } })),
  });

export const updateIntegration = (id: string, body: IntegrationUpdate) =>
  unwrap(api.PUT("/v1/integrations/{id}", { params: { path: { id } }, body }));

export const checkIntegration = (id: string) => unwrap(api.POST("/v1/integrations/{id}/check", { params: { path: { id } } }));
