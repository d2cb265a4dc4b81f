// The Partials area's queries, and the writes beside the keys they refresh (a partial's history
// is under the same key, in content-versions/queries.ts).
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import { etagOf } from "../content-versions/queries";

export type Partial = components["schemas"]["Partial"];
export type PartialInput = components["schemas"]["PartialInput"];

/** Every query of the area (the list, one partial, its history) starts with this key. */
export const PARTIALS = ["partials"] as const;

export const partialsQuery = (api: Api) =>
  infiniteQueryOptions({
    queryKey: [...PARTIALS, "list"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/partials", { params: { query: { cursor: pageParam, limit: 100 } } })),
    ...CURSOR_PAGES,
  });

export const partialQuery = (api: Api, key: string) =>
  queryOptions({
    queryKey: [...PARTIALS, "one", key],
    queryFn: () => unwrap(api.GET("/v1/partials/{key}", { params: { path: { key } } })),
  });

/** Every write names the version the page read: a partial saved by someone else since answers 412 `partial_changed`. */
const readAt = (partial: Partial) => ({ path: { key: partial.key }, header: { "if-match": etagOf(partial.version) } });

/** Creates a partial, or saves `partial` at the version the page read; the area refreshes. */
export const savePartialMutation = (api: Api, partial: Partial | undefined) =>
  mutationOptions({
    mutationFn: (body: PartialInput) =>
      partial ? unwrap(api.PUT("/v1/partials/{key}", { params: readAt(partial), body })) : unwrap(api.POST("/v1/partials", { body })),
    onSuccess: (_saved, _input, _result, { client }) => client.invalidateQueries({ queryKey: PARTIALS }),
  });

/** Refused with 409 `partial_in_use` (what renders it, in `errors`). */
export const deletePartialMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (partial: Partial) => unwrap(api.DELETE("/v1/partials/{key}", { params: readAt(partial) })),
    onSuccess: (_answer, _partial, _result, { client }) => client.invalidateQueries({ queryKey: PARTIALS }),
  });
