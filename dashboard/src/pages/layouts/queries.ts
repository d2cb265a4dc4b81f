// The Layouts area's queries, and the writes beside the keys they refresh (a layout's history
// is under the same key, in content-versions/queries.ts).
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import { etagOf } from "../content-versions/queries";

export type Layout = components["schemas"]["Layout"];
export type LayoutInput = components["schemas"]["LayoutInput"];

/** Every query of the area (the list, one layout, its history) starts with this key. */
export const LAYOUTS = ["layouts"] as const;

export const layoutsQuery = (api: Api) =>
  infiniteQueryOptions({
    queryKey: [...LAYOUTS, "list"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/layouts", { params: { query: { cursor: pageParam, limit: 100 } } })),
    ...CURSOR_PAGES,
  });

/** The first hundred, for the email step's layout picker. */
export const layoutPickQuery = (api: Api) =>
  queryOptions({
    queryKey: [...LAYOUTS, "pick"],
    queryFn: async () => (await unwrap(api.GET("/v1/layouts", { params: { query: { limit: 100 } } }))).data,
  });

export const layoutQuery = (api: Api, key: string) =>
  queryOptions({
    queryKey: [...LAYOUTS, "one", key],
    queryFn: () => unwrap(api.GET("/v1/layouts/{key}", { params: { path: { key } } })),
  });

/** Every write names the version the page read: a layout saved by someone else since answers 412 `layout_changed`. */
const readAt = (layout: Layout) => ({ path: { key: layout.key }, header: { "if-match": etagOf(layout.version) } });

/** Creates a layout, or saves `layout` at the version the page read; the area refreshes. */
export const saveLayoutMutation = (api: Api, layout: Layout | undefined) =>
  mutationOptions({
    mutationFn: (body: LayoutInput) =>
      layout ? unwrap(api.PUT("/v1/layouts/{key}", { params: readAt(layout), body })) : unwrap(api.POST("/v1/layouts", { body })),
    onSuccess: (_saved, _input, _result, { client }) => client.invalidateQueries({ queryKey: LAYOUTS }),
  });

/** Makes `layout` the environment's default (the API moves the flag from the one that had it). */
export const makeDefaultLayoutMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (layout: Layout) =>
      unwrap(
        api.PUT("/v1/layouts/{key}", {
          params: readAt(layout),
          body: {
            key: layout.key,
            name: layout.name,
            description: layout.description,
            html: layout.html,
            text: layout.text,
            isDefault: true,
          },
        }),
      ),
    onSuccess: (_saved, _layout, _result, { client }) => client.invalidateQueries({ queryKey: LAYOUTS }),
  });

/** Refused with 409 `layout_in_use` (the workflows in `errors`) while an email step names it. */
export const deleteLayoutMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (layout: Layout) => unwrap(api.DELETE("/v1/layouts/{key}", { params: readAt(layout) })),
    onSuccess: (_answer, _layout, _result, { client }) => client.invalidateQueries({ queryKey: LAYOUTS }),
  });
