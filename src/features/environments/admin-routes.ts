import { unscopedDb } from "../../db/unscoped";
import { unscopedLogs } from "../../durable-objects/client/unscoped-logs";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json } from "../../lib/openapi";
import { environmentsRepository } from "./repository";
import { auditContextOf } from "../audit/record";
import {
  ApiKeyCreated,
  ApiKeyIdParam,
  ApiKeyInput,
  ApiKeyList,
  ApiKeyPageQuery,
  ApiKey,
  Environment,
  EnvironmentInput,
  EnvironmentList,
  EnvironmentPageQuery,
  EnvironmentSlugParam,
  EnvironmentUpdate,
  RotateInput,
  Rotation,
} from "./schemas";

/** The admin API's own scheme: the same header, a different credential (`clarion_admin_...`). */
export const adminSecurity = [{ AdminKey: [] }];

const tags = ["Admin"];

export const adminRoutes = createRouter();

const repo = (c: { env: { DB: D1Database } }) => environmentsRepository(unscopedDb(c.env));
const noEnvironment = (slug: string) => new ApiError("environment_not_found", `No environment with slug "${slug}".`);
const noKey = (id: string) => new ApiError("api_key_not_found", `No API key with id "${id}".`);

adminRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/admin/environments",
    tags,
    summary: "List environments",
    security: adminSecurity,
    request: { query: EnvironmentPageQuery },
    responses: { 200: { description: "A page of environments by slug", content: json(EnvironmentList) } },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await repo(c).list(limit, cursor), 200);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/admin/environments",
    tags,
    summary: "Create an environment",
    description: "An environment starts empty and with no key: create one with `POST /v1/admin/environments/{slug}/keys`.",
    security: adminSecurity,
    request: { body: { required: true, content: json(EnvironmentInput) } },
    responses: { 201: { description: "Created", content: json(Environment) } },
    errors: ["environment_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await repo(c).create(input, auditContextOf(c));
    if (!created) throw new ApiError("environment_exists", `An environment with slug "${input.slug}" already exists.`);
    return c.json(created, 201);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/admin/environments/{slug}",
    tags,
    summary: "Get an environment",
    security: adminSecurity,
    request: { params: EnvironmentSlugParam },
    responses: { 200: { description: "The environment", content: json(Environment) } },
    errors: ["environment_not_found"],
  }),
  async (c) => {
    const { slug } = c.req.valid("param");
    const found = await repo(c).find(slug);
    if (!found) throw noEnvironment(slug);
    return c.json(found, 200);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/admin/environments/{slug}",
    tags,
    summary: "Rename an environment",
    security: adminSecurity,
    request: { params: EnvironmentSlugParam, body: { required: true, content: json(EnvironmentUpdate) } },
    responses: { 200: { description: "Renamed", content: json(Environment) } },
    errors: ["environment_not_found"],
  }),
  async (c) => {
    const { slug } = c.req.valid("param");
    const renamed = await repo(c).rename(slug, c.req.valid("json").name, auditContextOf(c));
    if (!renamed) throw noEnvironment(slug);
    return c.json(renamed, 200);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/admin/environments/{slug}",
    tags,
    summary: "Delete an environment and all its data",
    description:
      "Deletes the environment's keys, workflows (with their versions), subscribers, topics, integrations, variables, triggers, messages, in-app notifications, webhook endpoints with their events and attempts, and settings in D1, in one batch; its messages, their timelines, in-app notifications and trigger records in the message log's shards go after, within minutes, by queued jobs (no key reaches them meanwhile). It cannot be undone: export what you keep first (`npx clarion workflows export`).",
    security: adminSecurity,
    request: { params: EnvironmentSlugParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["environment_not_found"],
  }),
  async (c) => {
    const { slug } = c.req.valid("param");
    if (!(await repo(c).remove(slug, auditContextOf(c), unscopedLogs(c.env)))) throw noEnvironment(slug);
    return c.body(null, 204);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/admin/environments/{slug}/keys",
    tags,
    summary: "List an environment's API keys",
    description: "Keys in use (active or expiring) by default; never the secrets, only their prefixes.",
    security: adminSecurity,
    request: { params: EnvironmentSlugParam, query: ApiKeyPageQuery },
    responses: { 200: { description: "A page of keys, oldest first", content: json(ApiKeyList) } },
    errors: ["environment_not_found"],
  }),
  async (c) => {
    const { slug } = c.req.valid("param");
    const { limit, cursor, includeRevoked } = c.req.valid("query");
    const page = await repo(c).listKeys(slug, limit, cursor, includeRevoked);
    if (!page) throw noEnvironment(slug);
    return c.json(page, 200);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/admin/environments/{slug}/keys",
    tags,
    summary: "Create an API key",
    description: "The answer holds the key itself, this once: only its SHA-256 is stored. It works at once.",
    security: adminSecurity,
    request: { params: EnvironmentSlugParam, body: { required: true, content: json(ApiKeyInput) } },
    responses: { 201: { description: "Created", content: json(ApiKeyCreated) } },
    errors: ["environment_not_found"],
    secrets: ["key"],
  }),
  async (c) => {
    const { slug } = c.req.valid("param");
    const created = await repo(c).createKey(slug, c.req.valid("json"), auditContextOf(c));
    if (!created) throw noEnvironment(slug);
    return c.json(created, 201);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/admin/keys/{id}/revoke",
    tags,
    summary: "Revoke an API key",
    description:
      "Refused at once by the Worker instance that revoked it; other instances cache a key for up to 60 s, so a revoked key stops working everywhere within 60 s. Revoking twice is harmless.",
    security: adminSecurity,
    request: { params: ApiKeyIdParam },
    responses: { 200: { description: "Revoked", content: json(ApiKey) } },
    errors: ["api_key_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const outcome = await repo(c).revokeKey(id, auditContextOf(c));
    if (outcome.status === "not_found") throw noKey(id);
    return c.json(outcome.key, 200);
  },
);

adminRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/admin/keys/{id}/rotate",
    tags,
    summary: "Rotate an API key",
    description:
      "Creates a new key for the same environment (shown once) and lets the old one work until the overlap ends (default 24 h), so clients can move over without downtime. A revoked or expired key cannot be rotated (409): create a new key instead.",
    security: adminSecurity,
    request: { params: ApiKeyIdParam, body: { required: true, content: json(RotateInput) } },
    responses: { 201: { description: "The new key and the old one's new end", content: json(Rotation) } },
    errors: ["api_key_not_found", "api_key_revoked", "api_key_expired"],
    secrets: ["key.key"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const outcome = await repo(c).rotateKey(id, c.req.valid("json"), auditContextOf(c));
    switch (outcome.status) {
      case "not_found":
        throw noKey(id);
      case "revoked":
        throw new ApiError("api_key_revoked", `The API key "${id}" is revoked; create a new key instead.`);
      case "expired":
        throw new ApiError("api_key_expired", `The API key "${id}" has expired; create a new key instead.`);
      case "rotated":
        return c.json({ key: outcome.key, previous: outcome.previous }, 201);
    }
  },
);
