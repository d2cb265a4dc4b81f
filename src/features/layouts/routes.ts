import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError, type ErrorCode, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { etagOf, IfMatchHeader, ifMatchVersions } from "../workflows/versions/if-match";
import { jsonPatch } from "../workflows/versions/json-patch";
import { DiffQuery, RevertInput, VersionPageQuery } from "../workflows/versions/schemas";
import { checkLayout } from "./checks";
import { ContentDiff, Layout, LayoutInput, LayoutKeyParam, LayoutList, LayoutPageQuery, LayoutVersion, LayoutVersionList } from "./schemas";
import { changedFields } from "./versions";
import { z } from "@hono/zod-openapi";

export const layoutsRoutes = createRouter();

const tags = ["Layouts"];
const missing = (key: string) => notFound("layout_not_found", `layout with key "${key}"`);
const stale = (key: string, current: number, code: ErrorCode = "layout_changed") =>
  new ApiError(
    code,
    `Layout "${key}" was changed by someone else since you read it (it is now at version ${current}): read it again, redo your change and send its ETag in If-Match.`,
    undefined,
    { headers: { etag: etagOf(current) } },
  );
const VersionParam = LayoutKeyParam.extend({
  n: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: "n", in: "path" }, example: 2 }),
});

async function layoutId(c: Context<AppEnv>, key: string) {
  const id = await c.var.data.layouts.idOf(key);
  if (!id) throw missing(key);
  return id;
}
async function versionOf(c: Context<AppEnv>, key: string, id: string, n: number) {
  const found = await c.var.data.layouts.version(id, n);
  if (!found) throw notFound("layout_version_not_found", `version ${n} of layout "${key}"`);
  return found;
}

layoutsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/layouts",
    tags,
    summary: "Create a layout",
    description:
      "An email's frame: `html` (and optional `text`) with `{{ content }}` once, where an email step's rendered content goes. `isDefault: true` makes it the environment's default (for email steps that name no layout) and takes the flag from the layout that had it.",
    security,
    request: { body: { required: true, content: json(LayoutInput) } },
    responses: { 201: { description: "Created", content: json(Layout) } },
    errors: ["layout_exists", "layout_content_missing"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    await checkLayout(c.var.data, input);
    const created = await c.var.data.layouts.create(input, auditContextOf(c));
    if (!created) throw new ApiError("layout_exists", `A layout with key "${input.key}" already exists.`);
    c.header("etag", etagOf(created.version));
    return c.json(created, 201);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/layouts",
    tags,
    summary: "List layouts",
    security,
    request: { query: LayoutPageQuery },
    responses: { 200: { description: "A page of layouts by key", content: json(LayoutList) } },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await c.var.data.layouts.list(limit, cursor), 200);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/layouts/{key}",
    tags,
    summary: "Get a layout",
    security,
    request: { params: LayoutKeyParam },
    responses: { 200: { description: "The layout", content: json(Layout) } },
    errors: ["layout_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const layout = await c.var.data.layouts.find(key);
    if (!layout) throw missing(key);
    c.header("etag", etagOf(layout.version));
    return c.json(layout, 200);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/layouts/{key}",
    tags,
    summary: "Replace a layout",
    description:
      "Replaces everything but the key (`key` in the body must be the key in the path). A trigger accepted before keeps rendering with the version current when it was accepted.",
    security,
    request: { params: LayoutKeyParam, headers: IfMatchHeader, body: { required: true, content: json(LayoutInput) } },
    responses: { 200: { description: "Updated (a new version, unless nothing changed)", content: json(Layout) } },
    errors: ["layout_not_found", "layout_key_immutable", "layout_changed", "layout_content_missing"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const input = c.req.valid("json");
    if (input.key !== key) {
      throw new ApiError(
        "layout_key_immutable",
        `A layout's key cannot change: email steps name "${key}". Create a layout under "${input.key}", point the steps at it, then delete "${key}".`,
        [{ path: "key", message: `Must be "${key}", the key in the path.` }],
      );
    }
    await checkLayout(c.var.data, input);
    const outcome = await c.var.data.layouts.update(key, input, auditContextOf(c), { ifMatch: ifMatchVersions(c.req.header("if-match")) });
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw stale(key, outcome.current);
    c.header("etag", etagOf(outcome.value.version));
    return c.json(outcome.value, 200);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/layouts/{key}",
    tags,
    summary: "Delete a layout",
    description:
      "Refused (409 `layout_in_use`, the workflows in `errors`) while an email step names it. Triggers accepted before the delete still render with it.",
    security,
    request: { params: LayoutKeyParam, headers: IfMatchHeader },
    responses: { 204: { description: "Deleted" } },
    errors: ["layout_not_found", "layout_changed", "layout_in_use"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const users = await c.var.data.layouts.usedBy(key);
    if (users.length > 0) {
      throw new ApiError(
        "layout_in_use",
        `Layout "${key}" is named by ${users.length} workflow(s): change their email steps' layout first.`,
        users.map((w) => ({ path: `workflows.${w}`, message: `Workflow "${w}" names layout "${key}".` })),
      );
    }
    const outcome = await c.var.data.layouts.remove(key, auditContextOf(c), ifMatchVersions(c.req.header("if-match")));
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw stale(key, outcome.current);
    return c.body(null, 204);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/layouts/{key}/versions",
    tags,
    summary: "List a layout's versions",
    description: "Newest first. Every create, save (when something changed), revert, promotion, default move and delete writes one.",
    security,
    request: { params: LayoutKeyParam, query: VersionPageQuery },
    responses: { 200: { description: "A page of versions", content: json(LayoutVersionList) } },
    errors: ["layout_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const page = await c.var.data.layouts.versions(key, limit, cursor);
    if (!page) throw missing(key);
    return c.json(page, 200);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/layouts/{key}/versions/{n}",
    tags,
    summary: "Get one version of a layout",
    security,
    request: { params: VersionParam },
    responses: { 200: { description: "The version, with the full definition as it was", content: json(LayoutVersion) } },
    errors: ["layout_not_found", "layout_version_not_found"],
  }),
  async (c) => {
    const { key, n } = c.req.valid("param");
    return c.json(await versionOf(c, key, await layoutId(c, key), n), 200);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/layouts/{key}/diff",
    tags,
    summary: "Compare two versions of a layout",
    description: "`patch` is the RFC 6902 JSON Patch that turns version `from`'s definition into version `to`'s.",
    security,
    request: { params: LayoutKeyParam, query: DiffQuery },
    responses: { 200: { description: "The difference", content: json(ContentDiff) } },
    errors: ["layout_not_found", "layout_version_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const query = c.req.valid("query");
    const layout = await c.var.data.layouts.find(key);
    if (!layout) throw missing(key);
    const id = await layoutId(c, key);
    const to = query.to ?? layout.version;
    const from = query.from ?? Math.max(1, to - 1);
    const [a, b] = await Promise.all([versionOf(c, key, id, from), versionOf(c, key, id, to)]);
    return c.json({ from, to, patch: jsonPatch(a.definition, b.definition), fields: changedFields(a.definition, b.definition) }, 200);
  },
);

layoutsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/layouts/{key}/revert",
    tags,
    summary: "Restore a version of a layout",
    description: "Saves version `version`'s content as a new version. With `If-Match`, a layout changed since answers 409.",
    security,
    request: { params: LayoutKeyParam, headers: IfMatchHeader, body: { required: true, content: json(RevertInput) } },
    responses: { 200: { description: "The layout, as restored", content: json(Layout) } },
    errors: ["layout_not_found", "layout_version_not_found", "layout_version_conflict"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { version } = c.req.valid("json");
    const target = await versionOf(c, key, await layoutId(c, key), version);
    await checkLayout(c.var.data, target.definition);
    const outcome = await c.var.data.layouts.update(key, target.definition, auditContextOf(c), {
      ifMatch: ifMatchVersions(c.req.header("if-match")),
      action: "reverted",
      summary: `Reverted to version ${version}`,
    });
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw stale(key, outcome.current, "layout_version_conflict");
    c.header("etag", etagOf(outcome.value.version));
    return c.json(outcome.value, 200);
  },
);
