import type { Context } from "hono";
import type { TranslationRow } from "../../db/queries/translations";
import type { AppEnv } from "../../env";
import { nestKeys, type TranslationKeys } from "../../engine/translate";
import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import { versionAuthorOf } from "../../db/queries/versioned-content";
import { diffRange, versionDiff } from "../content/versions";
import { staleContent } from "../content/precondition";
import { etagOf, ifMatchHeader, ifMatchVersions } from "../workflows/versions/if-match";
import {
  LocaleParam,
  Translation,
  TranslationDiff,
  TranslationDiffQuery,
  TranslationInput,
  TranslationList,
  TranslationRevertInput,
  TranslationSettings,
  TranslationStatus,
  TranslationVersion,
  TranslationVersionList,
  TranslationVersionParam,
} from "./schemas";
import { translationStatus } from "./status";

export const translationsRoutes = createRouter();

const tags = ["Translations"];

const missing = (locale: string) => notFound("translation_not_found", `translations for locale "${locale}"`);

const stale = (locale: string, current: number) => staleContent(`The translations of locale "${locale}"`, current, "translation_changed");

const IfMatch = ifMatchHeader("the locale");

/** Saves a locale's keys through the API: a stale `If-Match` refused, pinned gates forgotten, the ETag set. */
async function saveLocale(c: Context<AppEnv>, locale: string, keys: TranslationKeys, action?: "reverted") {
  const ifMatch = ifMatchVersions(c.req.header("if-match"));
  const saved = await c.var.data.translations.put(locale, keys, auditContextOf(c), {
    ...(action ? { action } : {}),
    ...(ifMatch ? { ifMatch } : {}),
  });
  if ("stale" in saved) throw stale(locale, saved.stale);
  if (saved.changed) forgetEnvironmentGates(c.var.data.environmentId);
  c.header("etag", etagOf(saved.row.version));
  return toTranslation(saved.row);
}

const toTranslation = (row: TranslationRow) => ({
  locale: row.locale,
  keys: nestKeys(row.keys),
  keyCount: Object.keys(row.keys).length,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

type VersionRow = NonNullable<Awaited<ReturnType<AppEnv["Variables"]["data"]["translations"]["version"]>>>;
const toVersion = (row: VersionRow) => ({
  version: row.version,
  action: row.action,
  author: versionAuthorOf(row),
  createdAt: row.createdAt.toISOString(),
  keys: row.keys ? nestKeys(row.keys) : null,
});

async function versionOf(c: Context<AppEnv>, locale: string, n: number): Promise<VersionRow> {
  const row = await c.var.data.translations.version(locale, n);
  if (!row) throw notFound("translation_version_not_found", `version ${n} of locale "${locale}"`);
  return row;
}

// The static paths first: `status` and `settings` are never locales (a locale's language is 2–3 letters), but the router matches in order.
translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations",
    tags,
    summary: "List the locales",
    description: "Each locale with its number of keys, its version and when it last changed; and the default locale.",
    security,
    responses: { 200: { description: "The locales", content: json(TranslationList) } },
  }),
  async (c) => {
    const [rows, settings] = await Promise.all([c.var.data.translations.list(), c.var.data.translations.settings()]);
    const data = rows.map((r) => ({
      locale: r.locale,
      keyCount: Object.keys(r.keys).length,
      version: r.version,
      updatedAt: r.updatedAt.toISOString(),
    }));
    return c.json({ defaultLocale: settings.defaultLocale, data }, 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations/status",
    tags,
    summary: "What each locale is missing or has outdated",
    description:
      "Per locale other than the default: the default locale's keys it lacks (they fall back to the default text) and those whose default text changed after its own (`outdated`).",
    security,
    responses: { 200: { description: "The status", content: json(TranslationStatus) } },
  }),
  async (c) => {
    const [rows, settings] = await Promise.all([c.var.data.translations.list(), c.var.data.translations.settings()]);
    return c.json(translationStatus(settings.defaultLocale, rows), 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations/settings",
    tags,
    summary: "Get the default locale",
    security,
    responses: { 200: { description: "The settings", content: json(TranslationSettings) } },
  }),
  async (c) => c.json({ defaultLocale: (await c.var.data.translations.settings()).defaultLocale }, 200),
);

translationsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/translations/settings",
    tags,
    summary: "Set the default locale",
    description:
      "The locale a subscriber's texts fall back to when neither their locale (`de-CH`) nor its language (`de`) has a key, and the one every `t` key of a workflow must exist in. `en` until set.",
    security,
    request: { body: { required: true, content: json(TranslationSettings) } },
    responses: { 200: { description: "The settings", content: json(TranslationSettings) } },
  }),
  async (c) => {
    const saved = await c.var.data.translations.setDefaultLocale(c.req.valid("json").defaultLocale, auditContextOf(c));
    forgetEnvironmentGates(c.var.data.environmentId);
    return c.json(saved, 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations/{locale}",
    tags,
    summary: "Get a locale's translations",
    description: "Its keys as nested JSON (the shape `PUT` and `clarion translations pull` use).",
    security,
    request: { params: LocaleParam },
    responses: { 200: { description: "The translations", content: json(Translation) } },
    errors: ["translation_not_found"],
  }),
  async (c) => {
    const { locale } = c.req.valid("param");
    const row = await c.var.data.translations.find(locale);
    if (!row) throw missing(locale);
    c.header("etag", etagOf(row.version));
    return c.json(toTranslation(row), 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/translations/{locale}",
    tags,
    summary: "Replace a locale's translations",
    description:
      "Every key of the locale, nested or dotted; a new version unless nothing changed. Triggers accepted before keep the texts of that moment. Each text is Liquid, parsed now: `{{ name }}` is the `t` filter's argument `name:`, `{{ count }}` its `count:`.",
    security,
    request: { params: LocaleParam, headers: IfMatch, body: { required: true, content: json(TranslationInput) } },
    responses: { 200: { description: "The translations as saved", content: json(Translation) } },
    errors: ["translation_changed"],
  }),
  async (c) => {
    const { locale } = c.req.valid("param");
    return c.json(await saveLocale(c, locale, c.req.valid("json").keys), 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/translations/{locale}",
    tags,
    summary: "Delete a locale's translations",
    description:
      "Its subscribers fall back to their language, then the default locale. Its versions stay, and triggers accepted before keep its texts.",
    security,
    request: { params: LocaleParam, headers: IfMatch },
    responses: { 204: { description: "Deleted" } },
    errors: ["translation_not_found", "translation_changed"],
  }),
  async (c) => {
    const { locale } = c.req.valid("param");
    const removed = await c.var.data.translations.remove(locale, auditContextOf(c), new Date(), ifMatchVersions(c.req.header("if-match")));
    if (removed === false) throw missing(locale);
    if (removed !== true) throw stale(locale, removed.stale);
    forgetEnvironmentGates(c.var.data.environmentId);
    return c.body(null, 204);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations/{locale}/versions",
    tags,
    summary: "List a locale's versions",
    description: "Newest first (the last 100), a deletion among them; 404 for a locale that never had translations.",
    security,
    request: { params: LocaleParam },
    responses: { 200: { description: "The versions", content: json(TranslationVersionList) } },
    errors: ["translation_not_found"],
  }),
  async (c) => {
    const { locale } = c.req.valid("param");
    const versions = await c.var.data.translations.versions(locale);
    if (versions.length === 0) throw missing(locale);
    return c.json({ data: versions.map(toVersion) }, 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations/{locale}/versions/{n}",
    tags,
    summary: "Get one version of a locale",
    security,
    request: { params: TranslationVersionParam },
    responses: { 200: { description: "The version", content: json(TranslationVersion) } },
    errors: ["translation_version_not_found"],
  }),
  async (c) => {
    const { locale, n } = c.req.valid("param");
    return c.json(toVersion(await versionOf(c, locale, n)), 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/translations/{locale}/diff",
    tags,
    summary: "Compare two versions of a locale",
    security,
    request: { params: LocaleParam, query: TranslationDiffQuery },
    responses: { 200: { description: "The difference", content: json(TranslationDiff) } },
    errors: ["translation_not_found", "translation_version_not_found"],
  }),
  async (c) => {
    const { locale } = c.req.valid("param");
    const query = c.req.valid("query");
    let to = query.to;
    if (to === undefined) {
      const [latest] = await c.var.data.translations.versions(locale);
      if (!latest) throw missing(locale);
      to = latest.version;
    }
    const { diff } = await versionDiff(
      diffRange(query, to),
      (n) => versionOf(c, locale, n),
      (row): TranslationKeys => row.keys ?? {},
    );
    return c.json(diff, 200);
  },
);

translationsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/translations/{locale}/revert",
    tags,
    summary: "Restore a version of a locale",
    description:
      "Saves version `version`'s keys as a new version (history is never rewritten); a deleted locale comes back. A version that records a deletion cannot be restored (404).",
    security,
    request: { params: LocaleParam, headers: IfMatch, body: { required: true, content: json(TranslationRevertInput) } },
    responses: { 200: { description: "The translations, as restored", content: json(Translation) } },
    errors: ["translation_version_not_found", "translation_changed"],
  }),
  async (c) => {
    const { locale } = c.req.valid("param");
    const target = await versionOf(c, locale, c.req.valid("json").version);
    if (!target.keys) throw notFound("translation_version_not_found", `version ${target.version} of locale "${locale}" (a deletion)`);
    return c.json(await saveLocale(c, locale, target.keys, "reverted"), 200);
  },
);
