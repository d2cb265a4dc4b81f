// The Suppressions area's query, and the write beside the key it refreshes.
import { infiniteQueryOptions, mutationOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type Suppression = components["schemas"]["Suppression"];
export type Channel = Suppression["channel"];

export const SUPPRESSIONS = ["suppressions"] as const;

export const suppressionsQuery = (api: Api, filters: { channel?: Channel; address?: string }) =>
  infiniteQueryOptions({
    queryKey: [...SUPPRESSIONS, "list", filters],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/suppressions", { params: { query: { ...filters, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

/** Sends to the address again; a new bounce or complaint suppresses it again. */
export const liftSuppression = (api: Api, address: string) =>
  unwrap(api.DELETE("/v1/suppressions/{address}", { params: { path: { address } } }));

export const liftSuppressionMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (s: Suppression) => liftSuppression(api, s.address),
    onSuccess: (_answer, _s, _result, { client }) => client.invalidateQueries({ queryKey: SUPPRESSIONS }),
  });
