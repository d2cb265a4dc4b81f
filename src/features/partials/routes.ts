import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError, type ErrorCode, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { etagOf, IfMatchHeader, ifMatchVersions } from "../workflows/versions/if-match";
import { jsonPatch } from "../workflows/versions/json-patch";
import { DiffQuery, RevertInput, VersionPageQuery } from "../workflows/versions/schemas";
import { checkPartial, partialUsers } from "./checks";
import { ContentDiff, ContentKey } from "../layouts/schemas";
import { Partial, PartialInput, PartialKeyParam, PartialList, PartialPageQuery, PartialVersion, PartialVersionList } from "./schemas";
import { changedFields } from "../layouts/versions";
import { z } from "@hono/zod-openapi";

export const partialsRoutes = createRouter();

const tags = ["Partials"];
const missing = (key: string) => notFound("partial_not_found", `partial with key "${key}"`);
const stale = (key: string, current: number, code: ErrorCode = "partial_changed") =>
  new ApiError(
    code,
    `Partial "${key}" was changed by someone else since you read it (it is now at version ${current}): read it again, redo your change and send its ETag in If-Match.`,
    undefined,
    { headers: { etag: etagOf(current) } },
  );
const VersionParam = PartialKeyParam.extend({
  n: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: "n", in: "path" }, example: 2 }),
});

async function partialId(c: Context<AppEnv>, key: string) {
  const id = await c.var.data.partials.idOf(key);
  if (!id) throw missing(key);
  return id;
}
async function versionOf(c: Context<AppEnv>, key: string, id: string, n: number) {
  const found = await c.var.data.partials.version(id, n);
  if (!found) throw notFound("partial_version_not_found", `version ${n} of partial "${key}"`);
  return found;
}

partialsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/partials",
    tags,
    summary: "Create a partial",
    description:
      'A block of Liquid any template renders with `{% render "key", name: value %}`: it sees only those arguments. Partials may render partials, 5 deep at most; an unknown partial or a cycle is refused when saved.',
    security,
    request: { body: { required: true, content: json(PartialInput) } },
    responses: { 201: { description: "Created", content: json(Partial) } },
    errors: ["partial_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    await checkPartial(c.var.data, input);
    const created = await c.var.data.partials.create(input, auditContextOf(c));
    if (!created) throw new ApiError("partial_exists", `A partial with key "${input.key}" already exists.`);
    c.header("etag", etagOf(created.version));
    return c.json(created, 201);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/partials",
    tags,
    summary: "List partials",
    security,
    request: { query: PartialPageQuery },
    responses: { 200: { description: "A page of partials by key", content: json(PartialList) } },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await c.var.data.partials.list(limit, cursor), 200);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/partials/{key}",
    tags,
    summary: "Get a partial",
    security,
    request: { params: PartialKeyParam },
    responses: { 200: { description: "The partial", content: json(Partial) } },
    errors: ["partial_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const partial = await c.var.data.partials.find(key);
    if (!partial) throw missing(key);
    c.header("etag", etagOf(partial.version));
    return c.json(partial, 200);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/partials/{key}",
    tags,
    summary: "Replace a partial",
    description:
      "Replaces everything but the key (`key` in the body must be the key in the path). A trigger accepted before keeps rendering with the version current when it was accepted.",
    security,
    request: { params: PartialKeyParam, headers: IfMatchHeader, body: { required: true, content: json(PartialInput) } },
    responses: { 200: { description: "Updated (a new version, unless nothing changed)", content: json(Partial) } },
    errors: ["partial_not_found", "partial_key_immutable", "partial_changed"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const input = c.req.valid("json");
    if (input.key !== key) {
      throw new ApiError(
        "partial_key_immutable",
        `A partial's key cannot change: templates render "${key}". Create a partial under "${input.key}", render it instead, then delete "${key}".`,
        [{ path: "key", message: `Must be "${key}", the key in the path.` }],
      );
    }
    await checkPartial(c.var.data, input);
    const outcome = await c.var.data.partials.update(key, input, auditContextOf(c), { ifMatch: ifMatchVersions(c.req.header("if-match")) });
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw stale(key, outcome.current);
    c.header("etag", etagOf(outcome.value.version));
    return c.json(outcome.value, 200);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/partials/{key}",
    tags,
    summary: "Delete a partial",
    description:
      "Refused (409 `partial_in_use`, listed in `errors`) while a workflow, layout or partial renders it. Triggers accepted before the delete still render with it.",
    security,
    request: { params: PartialKeyParam, headers: IfMatchHeader },
    responses: { 204: { description: "Deleted" } },
    errors: ["partial_not_found", "partial_changed", "partial_in_use"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    // A key no partial can have is not there (and would make the search for its users' LIKE pattern too long for D1).
    if (!ContentKey.safeParse(key).success) throw missing(key);
    const users = await partialUsers(c.var.data, key);
    if (users.length > 0) {
      throw new ApiError(
        "partial_in_use",
        `Partial "${key}" is rendered by ${users.join(", ")}: stop rendering it there first.`,
        users.map((path) => ({ path, message: `Renders partial "${key}".` })),
      );
    }
    const outcome = await c.var.data.partials.remove(key, auditContextOf(c), ifMatchVersions(c.req.header("if-match")));
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw stale(key, outcome.current);
    return c.body(null, 204);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/partials/{key}/versions",
    tags,
    summary: "List a partial's versions",
    description: "Newest first. Every create, save (when something changed), revert, promotion and delete writes one.",
    security,
    request: { params: PartialKeyParam, query: VersionPageQuery },
    responses: { 200: { description: "A page of versions", content: json(PartialVersionList) } },
    errors: ["partial_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const page = await c.var.data.partials.versions(key, limit, cursor);
    if (!page) throw missing(key);
    return c.json(page, 200);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/partials/{key}/versions/{n}",
    tags,
    summary: "Get one version of a partial",
    security,
    request: { params: VersionParam },
    responses: { 200: { description: "The version, with the full definition as it was", content: json(PartialVersion) } },
    errors: ["partial_not_found", "partial_version_not_found"],
  }),
  async (c) => {
    const { key, n } = c.req.valid("param");
    return c.json(await versionOf(c, key, await partialId(c, key), n), 200);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/partials/{key}/diff",
    tags,
    summary: "Compare two versions of a partial",
    description: "`patch` is the RFC 6902 JSON Patch that turns version `from`'s definition into version `to`'s.",
    security,
    request: { params: PartialKeyParam, query: DiffQuery },
    responses: { 200: { description: "The difference", content: json(ContentDiff) } },
    errors: ["partial_not_found", "partial_version_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const query = c.req.valid("query");
    const partial = await c.var.data.partials.find(key);
    if (!partial) throw missing(key);
    const id = await partialId(c, key);
    const to = query.to ?? partial.version;
    const from = query.from ?? Math.max(1, to - 1);
    const [a, b] = await Promise.all([versionOf(c, key, id, from), versionOf(c, key, id, to)]);
    return c.json({ from, to, patch: jsonPatch(a.definition, b.definition), fields: changedFields(a.definition, b.definition) }, 200);
  },
);

partialsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/partials/{key}/revert",
    tags,
    summary: "Restore a version of a partial",
    description: "Saves version `version`'s content as a new version. With `If-Match`, a partial changed since answers 409.",
    security,
    request: { params: PartialKeyParam, headers: IfMatchHeader, body: { required: true, content: json(RevertInput) } },
    responses: { 200: { description: "The partial, as restored", content: json(Partial) } },
    errors: ["partial_not_found", "partial_version_not_found", "partial_version_conflict"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { version } = c.req.valid("json");
    const target = await versionOf(c, key, await partialId(c, key), version);
    await checkPartial(c.var.data, target.definition);
    const outcome = await c.var.data.partials.update(key, target.definition, auditContextOf(c), {
      ifMatch: ifMatchVersions(c.req.header("if-match")),
      action: "reverted",
      summary: `Reverted to version ${version}`,
    });
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw stale(key, outcome.current, "partial_version_conflict");
    c.header("etag", etagOf(outcome.value.version));
    return c.json(outcome.value, 200);
  },
);
