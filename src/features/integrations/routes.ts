import { z } from "@hono/zod-openapi";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, type FieldError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { PROVIDERS, providerFor } from "../../providers/registry";
import type { ProviderAdapter } from "../../providers/types";
import { PROVIDER_CHANNELS } from "../../engine/steps";
import { checkIntegration, credentialsJsonSchema } from "./credentials";
import { destinationsOf, refusedDestinations } from "./destinations";
import {
  Integration,
  IntegrationCheck,
  IntegrationIdParam,
  IntegrationInput,
  IntegrationList,
  IntegrationListQuery,
  IntegrationUpdate,
  type Provider,
  ProviderList,
} from "./schemas";

export const integrationsRoutes = createRouter();

const destinationRefused = (errors: FieldError[]) =>
  new ApiError("destination_not_allowed", "A destination is loopback, private, link-local or not https.", errors);
const missing = (id: string) => notFound("integration_not_found", `integration with id "${id}"`);
const unknownTenant = (id: string) =>
  new ApiError("validation_failed", `No tenant "${id}" in this environment: create it first (POST /v1/tenants).`, [
    { path: "tenantId", message: `No tenant "${id}".` },
  ]);

/** An integration may only name a tenant of its environment: its messages are the only ones it sends. */
async function requireTenant(data: { tenants: { existing(ids: string[]): Promise<Set<string>> } }, tenantId: string | null | undefined) {
  if (tenantId && !(await data.tenants.existing([tenantId])).has(tenantId)) throw unknownTenant(tenantId);
}

/** Looked up per request, never a fixed list: adapters join the registry without touching this file. */
export const registeredProviders = (): ProviderAdapter[] => Object.keys(PROVIDERS).flatMap((id) => providerFor(id) ?? []);

integrationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/providers",
    tags: ["Integrations"],
    summary: "List the providers an integration can use",
    description: "Each provider's credentials as a JSON Schema, from the same zod schema that validates them.",
    security,
    request: { query: z.object({ channel: z.enum(PROVIDER_CHANNELS).optional() }) },
    responses: { 200: { description: "Every registered provider", content: json(ProviderList) } },
  }),
  (c) => {
    const { channel } = c.req.valid("query");
    const data: Provider[] = registeredProviders()
      .filter((adapter) => !channel || adapter.channel === channel)
      .map((adapter) => ({ id: adapter.id, channel: adapter.channel, credentials: credentialsJsonSchema(adapter) }));
    return c.json({ data }, 200);
  },
);

integrationsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/integrations",
    tags: ["Integrations"],
    summary: "Create an integration",
    description:
      "Connects a provider to this environment. The credentials are validated against the provider's schema, " +
      "encrypted at rest, and its secrets are masked in every answer, this one included.",
    security,
    request: { body: { required: true, content: json(IntegrationInput) } },
    responses: { 201: { description: "Created", content: json(Integration) } },
    errors: ["destination_not_allowed"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    // The schema has already refused an unknown provider.
    const adapter = providerFor(input.provider)!;
    const refused = refusedDestinations(destinationsOf(adapter, input.credentials, input.baseUrl), destinationOptions(c.env));
    if (refused.length) throw destinationRefused(refused);
    await requireTenant(c.var.data, input.tenantId);
    return c.json(await c.var.data.integrations.create(input, adapter.channel, auditContextOf(c)), 201);
  },
);

integrationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/integrations",
    tags: ["Integrations"],
    summary: "List integrations",
    security,
    request: { query: IntegrationListQuery },
    responses: { 200: { description: "A page of integrations, oldest first", content: json(IntegrationList) } },
  }),
  async (c) => {
    const { limit, cursor, channel, tenant } = c.req.valid("query");
    return c.json(await c.var.data.integrations.list(limit, cursor, channel, tenant), 200);
  },
);

integrationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/integrations/{id}",
    tags: ["Integrations"],
    summary: "Get an integration",
    security,
    request: { params: IntegrationIdParam },
    responses: { 200: { description: "The integration", content: json(Integration) } },
    errors: ["integration_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const integration = await c.var.data.integrations.find(id);
    if (!integration) throw missing(id);
    return c.json(integration, 200);
  },
);

integrationsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/integrations/{id}",
    tags: ["Integrations"],
    summary: "Change an integration",
    security,
    request: { params: IntegrationIdParam, body: { required: true, content: json(IntegrationUpdate) } },
    responses: { 200: { description: "Updated", content: json(Integration) } },
    errors: ["integration_not_found", "secret_requires_resupply", "destination_not_allowed"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireTenant(c.var.data, input.tenantId);
    const outcome = await c.var.data.integrations.update(id, input, destinationOptions(c.env), auditContextOf(c));
    switch (outcome.status) {
      case "updated":
        return c.json(outcome.integration, 200);
      case "not_found":
        throw missing(id);
      case "invalid":
        throw new ApiError("validation_failed", "The credentials are not valid for this integration.", outcome.errors);
      case "resupply":
        throw new ApiError(
          "secret_requires_resupply",
          `${outcome.moved.join(", ")} changed: the stored secrets listed in \`errors\` must be sent again in full, not masked or left out.`,
          outcome.errors,
        );
      case "destination_not_allowed":
        throw destinationRefused(outcome.errors);
    }
  },
);

integrationsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/integrations/{id}",
    tags: ["Integrations"],
    summary: "Delete an integration",
    security,
    request: { params: IntegrationIdParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["integration_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    if (!(await c.var.data.integrations.remove(id, auditContextOf(c)))) throw missing(id);
    return c.body(null, 204);
  },
);

integrationsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/integrations/{id}/check",
    tags: ["Integrations"],
    summary: "Check an integration's credentials",
    description:
      "Asks the provider through a harmless call where the adapter has one (`mode: remote`); otherwise checks the credentials' form (`mode: form`). " +
      "A failed check is still a `200` with `ok: false`.",
    security,
    request: { params: IntegrationIdParam },
    responses: { 200: { description: "The check's result", content: json(IntegrationCheck) } },
    errors: ["integration_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const integration = await c.var.data.integrations.config(id);
    if (!integration) throw missing(id);
    return c.json(await checkIntegration(providerFor(integration.provider), integration, destinationOptions(c.env)), 200);
  },
);
