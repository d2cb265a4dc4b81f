import { ApiError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { forgetTenant } from "./known-tenants";
import { Tenant, TenantIdParam, TenantInput, TenantList, TenantPageQuery, TenantUpdate } from "./schemas";

export const tenantsRoutes = createRouter();

export const tenantNotFound = (id: string) => notFound("tenant_not_found", `tenant "${id}"`);

tenantsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/tenants",
    tags: ["Tenants"],
    summary: "Create a tenant",
    description:
      "A tenant is one customer of your product. Triggers name it (`tenant`), templates read it as `tenant.*`, its brand overrides the environment's and its preferences are its subscribers' defaults.",
    security,
    request: { body: { required: true, content: json(TenantInput) } },
    responses: { 201: { description: "Created", content: json(Tenant) } },
    errors: ["tenant_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await c.var.data.tenants.create(input, auditContextOf(c));
    if (!created) throw new ApiError("tenant_exists", `A tenant with id "${input.id}" already exists.`);
    return c.json(created, 201);
  },
);

tenantsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/tenants",
    tags: ["Tenants"],
    summary: "List tenants",
    security,
    request: { query: TenantPageQuery },
    responses: { 200: { description: "A page of tenants by id", content: json(TenantList) } },
  }),
  async (c) => {
    const { limit, cursor, q } = c.req.valid("query");
    return c.json(await c.var.data.tenants.list(limit, cursor, q), 200);
  },
);

tenantsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/tenants/{id}",
    tags: ["Tenants"],
    summary: "Get a tenant",
    security,
    request: { params: TenantIdParam },
    responses: { 200: { description: "The tenant", content: json(Tenant) } },
    errors: ["tenant_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const tenant = await c.var.data.tenants.find(id);
    if (!tenant) throw tenantNotFound(id);
    return c.json(tenant, 200);
  },
);

tenantsRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/tenants/{id}",
    tags: ["Tenants"],
    summary: "Change a tenant",
    security,
    request: { params: TenantIdParam, body: { required: true, content: json(TenantUpdate) } },
    responses: { 200: { description: "Updated", content: json(Tenant) } },
    errors: ["tenant_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const updated = await c.var.data.tenants.update(id, c.req.valid("json"), auditContextOf(c));
    if (!updated) throw tenantNotFound(id);
    return c.json(updated, 200);
  },
);

tenantsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/tenants/{id}",
    tags: ["Tenants"],
    summary: "Delete a tenant",
    description:
      "Removes the tenant's settings and its subscribers' preferences for it. Subscribers and messages are kept, and messages keep the tenant's id.",
    security,
    request: { params: TenantIdParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["tenant_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    forgetTenant(c.var.data.environmentId, id);
    if (!(await c.var.data.tenants.remove(id, auditContextOf(c)))) throw tenantNotFound(id);
    return c.body(null, 204);
  },
);
