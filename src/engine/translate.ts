import type { Step } from "./steps";
import { isChannelStep } from "./steps";
import { placeSteps } from "./workflow-tree";

import { PLURAL_CATEGORIES, type PluralCategory, type TranslationKeys, type TranslationValue } from "../contract/translations";

export { PLURAL_CATEGORIES, type PluralCategory, type TranslationKeys, type TranslationValue };

export const TRANSLATION_KEY = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
export const MAX_KEY_LENGTH = 200;

/**
 * A BCP 47 tag in its canonical case (`de-ch` → `de-CH`), or null. The language must be a 2–3
 * letter code, so words such as `status` or `settings` are never taken for a locale.
 */
export function canonicalLocale(tag: string): string | null {
  if (tag.length > 35 || !/^[A-Za-z0-9-]+$/.test(tag)) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (!canonical || !/^[a-z]{2,3}$/.test(new Intl.Locale(canonical).language)) return null;
    return canonical;
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const PLURAL_SET: ReadonlySet<string> = new Set(PLURAL_CATEGORIES);

/** An object of plural forms: only category keys, string values, and an `other` to fall back on. */
export const isPluralForms = (v: unknown): v is Partial<Record<PluralCategory, string>> =>
  isRecord(v) && "other" in v && Object.entries(v).every(([k, text]) => PLURAL_SET.has(k) && typeof text === "string");

export type FlattenIssue = { path: string[]; message: string };

/**
 * Nested keys (the i18next and Knock shape) as dotted ones: `{cart: {items: {one, other}}}` is
 * `cart.items` with plural forms. An object of plural categories with an `other` is a value, not a level.
 */
export function flattenKeys(nested: Record<string, unknown>, maxDepth = 10): { keys: TranslationKeys; issues: FlattenIssue[] } {
  const keys: TranslationKeys = {};
  const issues: FlattenIssue[] = [];
  const walk = (value: Record<string, unknown>, prefix: string[]) => {
    for (const [part, item] of Object.entries(value)) {
      const path = [...prefix, part];
      const key = path.join(".");
      // `"welcome.subject": "..."` and `{"welcome": {"subject": "..."}}` are the same key.
      if (!part.split(".").every((segment) => /^[A-Za-z0-9_-]+$/.test(segment))) {
        issues.push({ path, message: "A key part is letters, digits, `_` or `-` (dots separate levels)." });
      } else if (key.length > MAX_KEY_LENGTH) {
        issues.push({ path, message: `A key is at most ${MAX_KEY_LENGTH} characters.` });
      } else if (typeof item === "string" || isPluralForms(item)) {
        keys[key] = item;
      } else if (isRecord(item) && path.length < maxDepth) {
        if (Object.keys(item).length === 0) issues.push({ path, message: "An empty object: give texts or leave the key out." });
        walk(item, path);
      } else {
        issues.push({
          path,
          message: isRecord(item)
            ? `Nested more than ${maxDepth} levels.`
            : "A text, an object of plural forms (`one`, `other`, ...) or an object of keys.",
        });
      }
    }
  };
  walk(nested, []);
  return { keys, issues };
}

/** Dotted keys back to nested JSON; flattening refuses a key that is both a text and a level, so this never loses one. */
export function nestKeys(flat: TranslationKeys): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(flat).sort()) {
    const parts = key.split(".");
    let node = out;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (!isRecord(next) || isPluralForms(next)) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1)!] = flat[key];
  }
  return out;
}

const normalise = (tag: string) => tag.toLowerCase().replaceAll("_", "-");

/** The locales a subscriber's texts come from, most specific first: `de-CH`, `de`, then the default. */
export function localeChain(subscriberLocale: string | null | undefined, defaultLocale: string): string[] {
  const chain: string[] = [];
  if (subscriberLocale) {
    chain.push(normalise(subscriberLocale));
    const language = normalise(subscriberLocale).split("-")[0];
    if (language) chain.push(language);
  }
  chain.push(normalise(defaultLocale));
  return [...new Set(chain)];
}

const pluralRules = new Map<string, Intl.PluralRules>();
function pluralCategory(locale: string, count: number): PluralCategory {
  let rules = pluralRules.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    pluralRules.set(locale, rules);
  }
  return rules.select(count) as PluralCategory;
}

/** Picks the form for `count`: a `zero` form wins for 0 (as in i18next), then the locale's category, then `other`. */
export function pluralForm(forms: Partial<Record<PluralCategory, string>>, locale: string, count: number): string {
  if (count === 0 && forms.zero !== undefined) return forms.zero;
  return forms[pluralCategory(locale, count)] ?? forms.other ?? "";
}

/** What the `t` filter reads: the texts of every locale at the pinned revision, and the subscriber's chain through them. */
export interface Translator {
  lookup(key: string): { value: TranslationValue; locale: string } | undefined;
}

/** A translator over dictionaries keyed by locale (any case), for one subscriber's chain. */
export function translator(dictionaries: ReadonlyMap<string, TranslationKeys>, chain: readonly string[]): Translator {
  const byTag = new Map([...dictionaries].map(([tag, keys]) => [normalise(tag), { tag, keys }]));
  const found = chain.flatMap((tag) => {
    const hit = byTag.get(tag);
    return hit ? [hit] : [];
  });
  return {
    lookup(key) {
      for (const { tag, keys } of found) {
        const value = keys[key];
        if (value !== undefined) return { value, locale: tag };
      }
      return undefined;
    },
  };
}

/** The scope slot the `t` filter reads its translator from: a symbol, so no template can name it. */
export const TRANSLATOR: unique symbol = Symbol("clarion.translator");

type LiquidStrings = [(string | number)[], string][];
function strings(value: unknown, path: (string | number)[]): LiquidStrings {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, [...path, i]));
  if (isRecord(value)) return Object.entries(value).flatMap(([k, item]) => strings(item, [...path, k]));
  return [];
}

// A literal key piped into `t`: `"a.b" | t` or `'a.b' | t: name: x`; `| translate` and `| t2` are other filters.
const T_USE = /(["'])([^"'\n]{1,200})\1\s*\|\s*t(?![\w-])/g;

/** The keys a Liquid string passes to `t` literally (a key held in a variable cannot be known before it renders). */
export function translationKeysIn(source: string): string[] {
  if (!source.includes("t")) return [];
  return [...source.matchAll(T_USE)].map((m) => m[2]!);
}

/** Every literal `t` key of a workflow's channel steps at any depth, with the path of the template field that uses it. */
export function translationUses(steps: readonly Step[]): { path: (string | number)[]; key: string }[] {
  return placeSteps(steps).flatMap(({ step, at }) => {
    if (!isChannelStep(step)) return [];
    const sources = [...strings(step.template, [...at, "template"]), ...strings(step.locales ?? {}, [...at, "locales"])];
    return sources.flatMap(([path, source]) => translationKeysIn(source).map((key) => ({ path, key })));
  });
}

/** True when a template source (or several, as JSON) uses `t` at all. */
export const mentionsTranslations = (source: string) => /\|\s*t(?![\w-])/.test(source);

/** True when a workflow's steps use `t` at all: delivery loads translations only for those. */
export const usesTranslations = (steps: readonly Step[]) => mentionsTranslations(JSON.stringify(steps));
