import type { Context } from "hono";
import type { BrandDefinition as StoredDefinition } from "../../contract/brand";
import type { StoredBrand } from "../../db/queries/brand";
import type { AppEnv } from "../../env";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import { versionAuthorOf } from "../../db/queries/versioned-content";
import { staleContent } from "../content/precondition";
import { diffRange, versionDiff } from "../content/versions";
import { etagOf, ifMatchHeader, ifMatchVersions } from "../workflows/versions/if-match";
import {
  Brand,
  BrandDefinition,
  BrandDiff,
  BrandDiffQuery,
  BrandRevertInput,
  BrandVersion,
  BrandVersionList,
  BrandVersionParam,
} from "./schemas";

export const brandRoutes = createRouter();

const tags = ["Brand"];

const IfMatch = ifMatchHeader("the brand");

export const toBrand = (stored: StoredBrand): Brand => ({
  ...stored.definition,
  version: stored.version,
  updatedAt: stored.updatedAt?.toISOString() ?? null,
});

/** `http:` links pass only where private destinations are allowed (a local deployment): a mail client would fetch them unencrypted. */
export function refuseHttp(c: Context<AppEnv>, brand: StoredDefinition) {
  if (destinationOptions(c.env).allowPrivate) return;
  const urls: [string, string | null][] = [
    ["logoUrl", brand.logoUrl],
    ...brand.socialLinks.map((l, i): [string, string] => [`socialLinks.${i}.url`, l.url]),
  ];
  const errors = urls.filter(([, url]) => url?.startsWith("http:")).map(([path]) => ({ path, message: "Use an https: URL." }));
  if (errors.length) throw new ApiError("validation_failed", "The brand's URLs must be https:.", errors);
}

const stale = (current: number) => staleContent("The brand", current, "brand_changed");

/** Saves a brand through the API: checked, pinned gates forgotten, the ETag set. */
export async function saveBrand(
  c: Context<AppEnv>,
  definition: StoredDefinition,
  options: { action?: "reverted"; ifMatch?: number[] | undefined } = {},
) {
  refuseHttp(c, definition);
  const data = c.var.data;
  let ifVersion: number | undefined;
  if (options.ifMatch !== undefined) {
    const current = (await data.brand.get()).version;
    if (!options.ifMatch.includes(current)) throw stale(current);
    ifVersion = current;
  }
  const saved = await data.brand.save(definition, auditContextOf(c), { action: options.action, ifVersion });
  if (saved.status === "stale") throw stale(saved.current);
  forgetEnvironmentGates(data.environmentId);
  c.header("etag", etagOf(saved.brand.version));
  return toBrand(saved.brand);
}

const toVersion = (row: NonNullable<Awaited<ReturnType<AppEnv["Variables"]["data"]["brand"]["version"]>>>): BrandVersion => ({
  version: row.version,
  action: row.action,
  author: versionAuthorOf(row),
  createdAt: row.createdAt.toISOString(),
  definition: row.definition,
});

async function versionOf(c: Context<AppEnv>, n: number) {
  const row = await c.var.data.brand.version(n);
  if (!row) throw notFound("brand_version_not_found", `version ${n} of the brand`);
  return toVersion(row);
}

brandRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/brand",
    tags,
    summary: "Get the brand",
    description:
      "What every template reads as `{{ brand.* }}` and the hosted preference and unsubscribe pages show. Before the first save, `version` is 0 and the preference page's former branding (or Clarion's defaults) applies.",
    security,
    responses: { 200: { description: "The brand", content: json(Brand) } },
  }),
  async (c) => {
    const stored = await c.var.data.brand.get();
    c.header("etag", etagOf(stored.version));
    return c.json(toBrand(stored), 200);
  },
);

brandRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/brand",
    tags,
    summary: "Save the brand",
    description:
      "Replaces the brand: a new version unless nothing changed. Triggers accepted before keep rendering with the version current when they were accepted. URLs must be `https:` (`http:` only where the deployment allows private destinations).",
    security,
    request: { headers: IfMatch, body: { required: true, content: json(BrandDefinition) } },
    responses: { 200: { description: "The brand as saved", content: json(Brand) } },
    errors: ["brand_changed"],
  }),
  async (c) => c.json(await saveBrand(c, c.req.valid("json"), { ifMatch: ifMatchVersions(c.req.header("if-match")) }), 200),
);

brandRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/brand/versions",
    tags,
    summary: "List the brand's versions",
    description: "Newest first (the last 100).",
    security,
    responses: { 200: { description: "The versions", content: json(BrandVersionList) } },
  }),
  async (c) => c.json({ data: (await c.var.data.brand.versions()).map(toVersion) }, 200),
);

brandRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/brand/versions/{n}",
    tags,
    summary: "Get one version of the brand",
    security,
    request: { params: BrandVersionParam },
    responses: { 200: { description: "The version", content: json(BrandVersion) } },
    errors: ["brand_version_not_found"],
  }),
  async (c) => c.json(await versionOf(c, c.req.valid("param").n), 200),
);

brandRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/brand/diff",
    tags,
    summary: "Compare two versions of the brand",
    description:
      "`patch` is the RFC 6902 JSON Patch that turns version `from` into version `to`; by default the last change. Before the first save: `from` and `to` 0, no patch.",
    security,
    request: { query: BrandDiffQuery },
    responses: { 200: { description: "The difference", content: json(BrandDiff) } },
    errors: ["brand_version_not_found"],
  }),
  async (c) => {
    const query = c.req.valid("query");
    const to = query.to ?? (await c.var.data.brand.get()).version;
    // Never saved, nothing asked: nothing to compare (a brand's versions start at 1).
    if (to === 0 && query.from === undefined) return c.json({ from: 0, to: 0, patch: [] }, 200);
    const { diff } = await versionDiff(
      diffRange(query, to),
      (n) => versionOf(c, n),
      (v) => v.definition,
    );
    return c.json(diff, 200);
  },
);

brandRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/brand/revert",
    tags,
    summary: "Restore a version of the brand",
    description: "Saves version `version` as a new version (history is never rewritten).",
    security,
    request: { headers: IfMatch, body: { required: true, content: json(BrandRevertInput) } },
    responses: { 200: { description: "The brand, as restored", content: json(Brand) } },
    errors: ["brand_version_not_found", "brand_changed"],
  }),
  async (c) => {
    const target = await versionOf(c, c.req.valid("json").version);
    return c.json(await saveBrand(c, target.definition, { action: "reverted", ifMatch: ifMatchVersions(c.req.header("if-match")) }), 200);
  },
);
