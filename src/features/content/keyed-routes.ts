import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError, type ErrorCode, type FieldError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import type { Data } from "../data";
import { etagOf, ifMatchHeader, ifMatchVersions } from "../workflows/versions/if-match";
import { DiffQuery, RevertInput, VersionPageQuery } from "../workflows/versions/schemas";
import type { ContentVersion, UpdateOptions } from "./keyed-repository";
import { staleContent } from "./precondition";
import { ContentDiff, type keyedContentSchemas } from "./schemas";
import { changedFields, diffRange, versionDiff } from "./versions";

/** `layout` of `Layout`: paths, codes and sentences use it. */
const nameOf = (title: "Layout" | "Partial"): "layout" | "partial" => (title === "Layout" ? "layout" : "partial");
type Page<T> = { data: T[]; nextCursor: string | null };
type Schemas = ReturnType<typeof keyedContentSchemas>;

/** What the routes need of a keyed content repository (see keyed-repository.ts). */
interface Store<Item, Def, Input> {
  find(key: string): Promise<Item | null>;
  idOf(key: string): Promise<string | null>;
  list(limit: number, cursor?: string): Promise<Page<Item>>;
  create(input: Input, context: ReturnType<typeof auditContextOf>): Promise<Item | null>;
  update(
    key: string,
    input: Input | Def,
    context: ReturnType<typeof auditContextOf>,
    options: UpdateOptions,
  ): Promise<{ status: "ok"; value: Item } | { status: "missing" } | { status: "stale"; current: number }>;
  remove(
    key: string,
    context: ReturnType<typeof auditContextOf>,
    ifMatch?: readonly number[],
  ): Promise<{ status: "ok" } | { status: "missing" } | { status: "stale"; current: number }>;
  versions(key: string, limit: number, cursor?: string): Promise<Page<ContentVersion<Def>> | null>;
  version(ownerId: string, n: number): Promise<ContentVersion<Def> | null>;
}

/**
 * The one kind of content that differs from another: its name, schemas, store, save check and
 * what refuses a delete. Everything else (paths, codes, If-Match, versions, diff, revert) is the same.
 */
export interface KeyedContentRoutes<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }> {
  schemas: Schemas & { Input: z.ZodType<Input> };
  store(data: Data): Store<Item, Def, Input>;
  /** Refuses what cannot be saved (422), as a save and as a revert. */
  check(data: Data, input: Input | Def): Promise<void>;
  /** What else a create and a replace may answer. */
  saveErrors: readonly ErrorCode[];
  describe: { create: string; delete: string; versions: string; keyImmutable: (key: string, wanted: string) => string };
  /** The places that still use `key` (a delete is 409 `<name>_in_use` while there are any), with the problem's detail. */
  usedBy(data: Data, key: string): Promise<{ detail: string; errors: FieldError[] } | null>;
}

/** What every route of one kind of content shares: its names, codes, and readers that answer its 404s. */
function routeKit<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }>(
  spec: KeyedContentRoutes<Item, Def, Input>,
) {
  const { title } = spec.schemas;
  const name = nameOf(title);
  const base = `/v1/${name}s`;
  const tags = [`${title}s`];
  const codes = {
    notFound: `${name}_not_found`,
    versionNotFound: `${name}_version_not_found`,
    changed: `${name}_changed`,
    conflict: `${name}_version_conflict`,
  } as const;
  const missing = (key: string) => notFound(codes.notFound, `${name} with key "${key}"`);
  const ifMatch = (c: Context<AppEnv>) => ifMatchVersions(c.req.header("if-match"));
  const ownerOf = async (c: Context<AppEnv>, key: string) => {
    const id = await spec.store(c.var.data).idOf(key);
    if (!id) throw missing(key);
    return id;
  };
  const versionOf = async (c: Context<AppEnv>, key: string, id: string, n: number) => {
    const found = await spec.store(c.var.data).version(id, n);
    if (!found) throw notFound(codes.versionNotFound, `version ${n} of ${name} "${key}"`);
    return found;
  };
  /** A write's outcome as the answer: the item with its ETag, or the problem. */
  const written = (
    c: Context<AppEnv>,
    key: string,
    outcome: Awaited<ReturnType<Store<Item, Def, Input>["update"]>>,
    staleCode: ErrorCode,
  ) => {
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw staleContent(`${title} "${key}"`, outcome.current, staleCode);
    c.header("etag", etagOf(outcome.value.version));
    return outcome.value;
  };
  const VersionParam = spec.schemas.KeyParam.extend({
    n: z.coerce
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({ param: { name: "n", in: "path" }, example: 2 }),
  });
  return { name, base, tags, codes, missing, ifMatch, ownerOf, versionOf, written, VersionParam };
}

type Kit<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }> = ReturnType<
  typeof routeKit<Item, Def, Input>
>;
type Router = ReturnType<typeof createRouter>;

/** Create, list and get. */
function crudRoutes<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }>(
  routes: Router,
  spec: KeyedContentRoutes<Item, Def, Input>,
  { name, base, tags, codes, missing }: Kit<Item, Def, Input>,
) {
  const { schemas: s } = spec;
  routes.openapi(
    apiRoute({
      method: "post",
      path: base,
      tags,
      summary: `Create a ${name}`,
      description: spec.describe.create,
      security,
      request: { body: { required: true, content: json(s.Input) } },
      responses: { 201: { description: "Created", content: json(s.Item) } },
      errors: [`${name}_exists`, ...spec.saveErrors],
    }),
    async (c) => {
      const input = c.req.valid("json") as Input;
      await spec.check(c.var.data, input);
      const created = await spec.store(c.var.data).create(input, auditContextOf(c));
      if (!created) throw new ApiError(`${name}_exists`, `A ${name} with key "${input.key}" already exists.`);
      c.header("etag", etagOf(created.version));
      return c.json(created, 201);
    },
  );

  routes.openapi(
    apiRoute({
      method: "get",
      path: base,
      tags,
      summary: `List ${name}s`,
      security,
      request: { query: s.PageQuery },
      responses: { 200: { description: `A page of ${name}s by key`, content: json(s.List) } },
    }),
    async (c) => {
      const { limit, cursor } = c.req.valid("query");
      return c.json(await spec.store(c.var.data).list(limit, cursor), 200);
    },
  );

  routes.openapi(
    apiRoute({
      method: "get",
      path: `${base}/{key}`,
      tags,
      summary: `Get a ${name}`,
      security,
      request: { params: s.KeyParam },
      responses: { 200: { description: `The ${name}`, content: json(s.Item) } },
      errors: [codes.notFound],
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const found = await spec.store(c.var.data).find(key);
      if (!found) throw missing(key);
      c.header("etag", etagOf(found.version));
      return c.json(found, 200);
    },
  );
}

/** Replace and delete. */
function writeRoutes<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }>(
  routes: Router,
  spec: KeyedContentRoutes<Item, Def, Input>,
  { name, base, tags, codes, missing, ifMatch, written }: Kit<Item, Def, Input>,
) {
  const { schemas: s } = spec;
  routes.openapi(
    apiRoute({
      method: "put",
      path: `${base}/{key}`,
      tags,
      summary: `Replace a ${name}`,
      description:
        "Replaces everything but the key (`key` in the body must be the key in the path). A trigger accepted before keeps rendering with the version current when it was accepted.",
      security,
      request: { params: s.KeyParam, headers: ifMatchHeader(`the ${name}`), body: { required: true, content: json(s.Input) } },
      responses: { 200: { description: "Updated (a new version, unless nothing changed)", content: json(s.Item) } },
      errors: [codes.notFound, `${name}_key_immutable`, codes.changed, ...spec.saveErrors],
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const input = c.req.valid("json") as Input;
      if (input.key !== key) {
        throw new ApiError(`${name}_key_immutable`, spec.describe.keyImmutable(key, input.key), [
          { path: "key", message: `Must be "${key}", the key in the path.` },
        ]);
      }
      await spec.check(c.var.data, input);
      const outcome = await spec.store(c.var.data).update(key, input, auditContextOf(c), { ifMatch: ifMatch(c) });
      return c.json(written(c, key, outcome, codes.changed), 200);
    },
  );

  routes.openapi(
    apiRoute({
      method: "delete",
      path: `${base}/{key}`,
      tags,
      summary: `Delete a ${name}`,
      description: spec.describe.delete,
      security,
      request: { params: s.KeyParam, headers: ifMatchHeader(`the ${name}`) },
      responses: { 204: { description: "Deleted" } },
      errors: [codes.notFound, codes.changed, `${name}_in_use`],
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const users = await spec.usedBy(c.var.data, key);
      if (users) throw new ApiError(`${name}_in_use`, users.detail, users.errors);
      const outcome = await spec.store(c.var.data).remove(key, auditContextOf(c), ifMatch(c));
      if (outcome.status === "missing") throw missing(key);
      if (outcome.status === "stale") throw staleContent(`${spec.schemas.title} "${key}"`, outcome.current, codes.changed);
      return c.body(null, 204);
    },
  );
}

/** The versions, one version and a diff. */
function versionRoutes<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }>(
  routes: Router,
  spec: KeyedContentRoutes<Item, Def, Input>,
  { name, base, tags, codes, missing, ownerOf, versionOf, VersionParam }: Kit<Item, Def, Input>,
) {
  const { schemas: s } = spec;
  routes.openapi(
    apiRoute({
      method: "get",
      path: `${base}/{key}/versions`,
      tags,
      summary: `List a ${name}'s versions`,
      description: spec.describe.versions,
      security,
      request: { params: s.KeyParam, query: VersionPageQuery },
      responses: { 200: { description: "A page of versions", content: json(s.VersionList) } },
      errors: [codes.notFound],
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const { limit, cursor } = c.req.valid("query");
      const page = await spec.store(c.var.data).versions(key, limit, cursor);
      if (!page) throw missing(key);
      return c.json(page as Page<ContentVersion<object>>, 200);
    },
  );

  routes.openapi(
    apiRoute({
      method: "get",
      path: `${base}/{key}/versions/{n}`,
      tags,
      summary: `Get one version of a ${name}`,
      security,
      request: { params: VersionParam },
      responses: { 200: { description: "The version, with the full definition as it was", content: json(s.Version) } },
      errors: [codes.notFound, codes.versionNotFound],
    }),
    async (c) => {
      const { key, n } = c.req.valid("param");
      return c.json((await versionOf(c, key, await ownerOf(c, key), n)) as ContentVersion<object>, 200);
    },
  );

  routes.openapi(
    apiRoute({
      method: "get",
      path: `${base}/{key}/diff`,
      tags,
      summary: `Compare two versions of a ${name}`,
      description: "`patch` is the RFC 6902 JSON Patch that turns version `from`'s definition into version `to`'s.",
      security,
      request: { params: s.KeyParam, query: DiffQuery },
      responses: { 200: { description: "The difference", content: json(ContentDiff) } },
      errors: [codes.notFound, codes.versionNotFound],
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const found = await spec.store(c.var.data).find(key);
      if (!found) throw missing(key);
      const id = await ownerOf(c, key);
      const range = diffRange(c.req.valid("query"), found.version);
      const { diff, contents } = await versionDiff(
        range,
        (n) => versionOf(c, key, id, n),
        (v) => v.definition,
      );
      return c.json({ ...diff, fields: changedFields(...contents) }, 200);
    },
  );
}

/** A revert: a save of an old version, checked as a save. */
function revertRoute<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }>(
  routes: Router,
  spec: KeyedContentRoutes<Item, Def, Input>,
  { name, base, tags, codes, ifMatch, ownerOf, versionOf, written }: Kit<Item, Def, Input>,
) {
  const { schemas: s } = spec;
  routes.openapi(
    apiRoute({
      method: "post",
      path: `${base}/{key}/revert`,
      tags,
      summary: `Restore a version of a ${name}`,
      description: `Saves version \`version\`'s content as a new version. With \`If-Match\`, a ${name} changed since answers 409.`,
      security,
      request: { params: s.KeyParam, headers: ifMatchHeader(`the ${name}`), body: { required: true, content: json(RevertInput) } },
      responses: { 200: { description: `The ${name}, as restored`, content: json(s.Item) } },
      errors: [codes.notFound, codes.versionNotFound, codes.conflict, ...spec.saveErrors],
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const { version } = c.req.valid("json");
      const target = await versionOf(c, key, await ownerOf(c, key), version);
      // What the old version renders may have gone since (a partial, a cycle): checked as a save is.
      await spec.check(c.var.data, target.definition);
      const outcome = await spec.store(c.var.data).update(key, target.definition, auditContextOf(c), {
        ifMatch: ifMatch(c),
        action: "reverted",
        summary: `Reverted to version ${version}`,
      });
      return c.json(written(c, key, outcome, codes.conflict), 200);
    },
  );
}

/**
 * The routes of one kind of keyed, versioned content: create, list, get, replace and delete on
 * `/v1/<name>s`, and its versions, one version, a diff and a revert, with ETag / If-Match as
 * workflows have them (412 `<name>_changed`, 409 `<name>_version_conflict` on a revert).
 */
export function keyedContentRoutes<Item extends { key: string; version: number }, Def extends object, Input extends { key: string }>(
  spec: KeyedContentRoutes<Item, Def, Input>,
) {
  const routes = createRouter();
  const kit = routeKit(spec);
  crudRoutes(routes, spec, kit);
  writeRoutes(routes, spec, kit);
  versionRoutes(routes, spec, kit);
  revertRoute(routes, spec, kit);
  return routes;
}
