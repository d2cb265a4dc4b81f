// The Tenants area's queries, and the writes beside the keys they refresh.
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type Tenant = components["schemas"]["Tenant"];
export type TenantInput = components["schemas"]["TenantInput"];
export type TenantUpdate = components["schemas"]["TenantUpdate"];
export type TenantBrand = components["schemas"]["TenantBrand"];
export type TenantPreferences = components["schemas"]["TenantPreferences"];
/**
 * A PATCH body as the API takes it. The generated `TenantUpdate` reads the nullable references
 * (`brand`, `preferences`) as `TenantBrand & (Record<string, never> | null)`, which no real value fits.
 */
export type TenantChanges = Omit<TenantUpdate, "brand" | "preferences"> & {
  brand?: TenantBrand | null;
  preferences?: TenantPreferences | null;
};

/** The lists of tenants (the page, the pickers): refreshed by every write. */
export const TENANTS = ["tenants"] as const;
/** One tenant: refreshed by a write to it. */
export const tenantKey = (id: string) => ["tenant", id] as const;

export const tenantPath = (id: string) => `/tenants/${encodeURIComponent(id)}`;

export const tenantsQuery = (api: Api, q: string) =>
  infiniteQueryOptions({
    queryKey: [...TENANTS, "list", q],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/tenants", { params: { query: { q: q || undefined, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

/** The first twenty whose id or name holds `search`, for a picker. */
export const tenantPickQuery = (api: Api, search: string) =>
  queryOptions({
    queryKey: [...TENANTS, "pick", search],
    queryFn: () => unwrap(api.GET("/v1/tenants", { params: { query: { q: search || undefined, limit: 20 } } })),
  });

export const tenantQuery = (api: Api, id: string) =>
  queryOptions({
    queryKey: tenantKey(id),
    queryFn: () => unwrap(api.GET("/v1/tenants/{id}", { params: { path: { id } } })),
  });

/** The tenant's latest messages, newest first (they keep its id after the tenant is deleted). */
export const tenantMessagesQuery = (api: Api, tenant: string) =>
  infiniteQueryOptions({
    queryKey: ["messages", { tenant }],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/messages", { params: { query: { tenant, cursor: pageParam, limit: 20 } } })),
    ...CURSOR_PAGES,
  });

export const createTenantMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (body: TenantInput) => unwrap(api.POST("/v1/tenants", { body })),
    onSuccess: (_tenant, _body, _result, { client }) => void client.invalidateQueries({ queryKey: TENANTS }),
  });

/** Saves the tenant; it and the lists are read again. */
export const updateTenantMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: (body: TenantChanges) => unwrap(api.PATCH("/v1/tenants/{id}", { params: { path: { id } }, body: body as TenantUpdate })),
    onSuccess: async (saved, _body, _result, { client }) => {
      client.setQueryData(tenantKey(id), saved);
      await client.invalidateQueries({ queryKey: TENANTS });
    },
  });

/** Deletes the tenant (and its integrations): its own entry goes, the lists and the integrations refresh. */
export const deleteTenantMutation = (api: Api, id: string) =>
  mutationOptions({
    mutationFn: () => unwrap(api.DELETE("/v1/tenants/{id}", { params: { path: { id } } })),
    onSuccess: (_answer, _v, _result, { client }) => {
      client.removeQueries({ queryKey: tenantKey(id) });
      void client.invalidateQueries({ queryKey: TENANTS });
      void client.invalidateQueries({ queryKey: ["integrations"] });
    },
  });
