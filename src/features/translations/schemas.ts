import { z } from "@hono/zod-openapi";
import { liquidTextIssue } from "../../engine/templates";
import { canonicalLocale, flattenKeys, type TranslationKeys } from "../../engine/translate";
import { PatchOperation, VersionAuthor } from "../workflows/versions/schemas";

const MAX_KEYS = 5000;
const MAX_TEXT = 10_000;

export const Locale = z
  .string()
  .max(35)
  .transform((tag, ctx) => {
    const canonical = canonicalLocale(tag);
    if (canonical === null) {
      ctx.addIssue({ code: "custom", message: "A BCP 47 locale such as `en`, `de-CH` or `pt-BR`." });
      return z.NEVER;
    }
    return canonical;
  })
  .openapi({ example: "de-CH", description: "A BCP 47 locale; stored in its canonical case." });

export const LocaleParam = z.object({ locale: Locale.openapi({ param: { name: "locale", in: "path" }, example: "de" }) });

const Nested = z.record(z.string(), z.unknown()).openapi({
  description:
    'Nested or dotted keys (the i18next and Knock shape): `{"welcome": {"subject": "Hi {{ name }}"}}` is the key `welcome.subject`. A value is a text, or its plural forms (`zero`, `one`, `two`, `few`, `many`, `other`; `other` required).',
  example: { welcome: { subject: "Welcome, {{ name }}" }, cart: { items: { one: "{{ count }} item", other: "{{ count }} items" } } },
});

/** What `PUT /v1/translations/{locale}` takes; parsed to flat keys, each text parsed as Liquid. */
export const TranslationInput = z
  .object({ keys: Nested })
  .strict()
  .transform((input, ctx): { keys: TranslationKeys } => {
    const { keys, issues } = flattenKeys(input.keys);
    for (const issue of issues) ctx.addIssue({ code: "custom", path: ["keys", ...issue.path], message: issue.message });
    if (Object.keys(keys).length > MAX_KEYS)
      ctx.addIssue({ code: "custom", path: ["keys"], message: `At most ${MAX_KEYS} keys per locale.` });
    const all = Object.keys(keys);
    const prefixes = new Set(
      all.flatMap((key) =>
        key
          .split(".")
          .slice(0, -1)
          .map((_, i, parts) => parts.slice(0, i + 1).join(".")),
      ),
    );
    for (const key of all) {
      if (prefixes.has(key))
        ctx.addIssue({ code: "custom", path: ["keys", ...key.split(".")], message: `"${key}" is both a text and a group of keys.` });
      const value = keys[key]!;
      for (const [form, text] of typeof value === "string" ? [[null, value] as const] : Object.entries(value)) {
        const at = ["keys", ...key.split("."), ...(form ? [form] : [])];
        if (text === undefined) continue;
        if (text.length > MAX_TEXT) ctx.addIssue({ code: "custom", path: at, message: `A text is at most ${MAX_TEXT} characters.` });
        else {
          const problem = liquidTextIssue(text);
          if (problem) ctx.addIssue({ code: "custom", path: at, message: `Liquid: ${problem}` });
        }
      }
    }
    return { keys };
  })
  .openapi("TranslationInput", {
    example: {
      keys: { welcome: { subject: "Welcome, {{ name }}" }, cart: { items: { one: "{{ count }} item", other: "{{ count }} items" } } },
    },
  });

export const Translation = z
  .object({
    locale: z.string(),
    keys: z.record(z.string(), z.unknown()).openapi({ description: "Nested, as imported." }),
    keyCount: z.number().int(),
    version: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Translation");

export const TranslationSummary = z
  .object({ locale: z.string(), keyCount: z.number().int(), version: z.number().int(), updatedAt: z.iso.datetime() })
  .openapi("TranslationSummary");

export const TranslationList = z
  .object({
    defaultLocale: z.string().openapi({ description: "The locale every other falls back to, and every `t` key must exist in." }),
    data: z.array(TranslationSummary),
  })
  .openapi("TranslationList");

export const LocaleStatus = z
  .object({
    locale: z.string(),
    missing: z
      .array(z.string())
      .openapi({ description: "Keys of the default locale this locale lacks: they render in the default locale." }),
    outdated: z.array(z.string()).openapi({
      description: "Keys whose default text changed after this locale's text did: the translation may no longer say the same.",
    }),
  })
  .openapi("LocaleStatus");

export const TranslationStatus = z
  .object({
    defaultLocale: z.string(),
    keys: z.array(z.string()).openapi({ description: "The default locale's keys." }),
    locales: z.array(LocaleStatus),
  })
  .openapi("TranslationStatus");

export const TranslationSettings = z
  .object({ defaultLocale: Locale })
  .strict()
  .openapi("TranslationSettings", { example: { defaultLocale: "en" } });

export const TranslationVersion = z
  .object({
    version: z.number().int(),
    action: z.enum(["created", "updated", "deleted", "promoted", "reverted"]),
    author: VersionAuthor,
    createdAt: z.iso.datetime(),
    keys: z.record(z.string(), z.unknown()).nullable().openapi({ description: "Nested; null for a deletion." }),
  })
  .openapi("TranslationVersion");

export const TranslationRevertInput = z
  .object({ version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: "The version to restore." }) })
  .strict()
  .openapi("TranslationRevertInput", { example: { version: 2 } });

export const TranslationVersionList = z.object({ data: z.array(TranslationVersion) }).openapi("TranslationVersionList");

const versionNumber = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const TranslationVersionParam = LocaleParam.extend({ n: versionNumber.openapi({ param: { name: "n", in: "path" }, example: 2 }) });

export const TranslationDiffQuery = z.object({
  from: versionNumber.optional().openapi({ description: "By default the version before `to`." }),
  to: versionNumber.optional().openapi({ description: "By default the current version." }),
});

export const TranslationDiff = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902 over the flat keys (`/welcome.subject`)." }),
  })
  .openapi("TranslationDiff");
