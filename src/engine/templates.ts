import { Liquid, type Template } from "liquidjs";
import { type Channel, type ChannelStep, isChannelStep, type Step } from "./steps";
import { placeSteps } from "./workflow-tree";
import type {
  ChatContent,
  ContentByChannel,
  EmailContent,
  InAppActionContent,
  InAppContent,
  InAppRedirectContent,
  PushContent,
  SmsContent,
  TemplateContext,
} from "./content";
import { localizedTemplate } from "./locale";
import { type LayoutSource, layoutEmail } from "./layouts";
import { type PartialSet, partialCache, partialFs, withPartials } from "./partials";
import { interpolate } from "./interpolation";

/** What a render may use beyond the step: its layout (email) and the partials `{% render %}` reads. */
export interface RenderAssets {
  layout: LayoutSource | null;
  partials: PartialSet;
}
import { TRANSLATOR } from "./translate";
import { translateFilter, translatorGlobals } from "./translate-filter";

export type RenderResult<C extends Channel> =
  | { ok: true; channel: C; content: ContentByChannel[C]; locale: string | null }
  | { ok: false; code: "template_error"; message: string };

type StepOf<C extends Channel> = Extract<ChannelStep, { type: C }>;
type TemplateOf<C extends Channel> = StepOf<C>["template"];

/**
 * Deployed Workers give no way to interrupt synchronous code and their clock stands still while it
 * runs, so `renderLimit` alone cannot stop a runaway template; `memoryLimit` (charged by ranges, joins, string
 * filters and, see below, every block render) and `parseLimit` are the guards that bite.
 * `fs: partialFs` keeps `{% render %}` away from any file system or fetch: it reads the partials the
 * render was given (engine/partials.ts).
 */
const OPTIONS = {
  strictVariables: false,
  strictFilters: true,
  ownPropertyOnly: true,
  fs: partialFs,
  relativeReference: false,
  parseLimit: 200_000,
  renderLimit: 1_000,
  // About 0.4 s of CPU at worst (nested loops measured in workerd); far above any real message.
  memoryLimit: 1_000_000,
} as const;

/**
 * liquidjs charges nothing per loop iteration, so nested `for` over a large payload array could spin
 * far past the CPU limit; charging each block render to the memory budget bounds total iterations.
 */
function chargeEveryRender(engine: Liquid): Liquid {
  const renderer = engine.renderer;
  const renderTemplates = renderer.renderTemplates.bind(renderer);
  renderer.renderTemplates = function* (templates, ctx, emitter) {
    ctx.memoryLimit.use(Math.max(1, templates.length));
    return yield* renderTemplates(templates, ctx, emitter);
  };
  return engine;
}

/**
 * `include` and `layout` would run a partial in the caller's scope: only `render` (the arguments
 * it is given, nothing else) may use a partial, and an email's frame is a stored layout.
 */
function renderOnly(engine: Liquid): Liquid {
  for (const name of ["include", "layout"]) {
    engine.registerTag(name, {
      parse() {
        throw new Error(`"${name}" is not supported: use {% render "partial-key", name: value %}`);
      },
      render() {},
    });
  }
  return engine;
}

const engines = {
  text: renderOnly(chargeEveryRender(new Liquid({ ...OPTIONS, cache: partialCache() }))),
  html: renderOnly(chargeEveryRender(new Liquid({ ...OPTIONS, cache: partialCache(), outputEscape: "escape" }))),
};
export type Mode = keyof typeof engines;
// Interpolated as text: an HTML body escapes the filter's whole output once.
for (const engine of Object.values(engines))
  engine.registerFilter(
    "t",
    translateFilter((source, vars) => render(source, vars)),
  );

const CACHE_SIZE = 256;
const parsed = new Map<string, Template[]>();

/** Most sends reuse a few templates: parse once per isolate, bounded so hostile variety cannot grow it. */
function parse(mode: Mode, source: string): Template[] {
  const key = `${mode}\u0000${source}`;
  const hit = parsed.get(key);
  if (hit) {
    parsed.delete(key);
    parsed.set(key, hit);
    return hit;
  }
  const templates = engines[mode].parse(source);
  parsed.set(key, templates);
  if (parsed.size > CACHE_SIZE) parsed.delete(parsed.keys().next().value as string);
  return templates;
}

function render(source: string, scope: TemplateContext | Record<string, unknown>, mode: Mode = "text"): string {
  if (!source.includes("{{") && !source.includes("{%")) return source;
  // Text and plain outputs only: read without liquidjs, as it would render them (interpolation.ts).
  const interpolated = interpolate(source, scope, mode === "html", OPTIONS.memoryLimit);
  if (interpolated !== undefined) return interpolated;
  return String(
    engines[mode].renderSync(parse(mode, source), scope, { globals: translatorGlobals((scope as Partial<TemplateContext>)[TRANSLATOR]) }),
  );
}

/** Optional fields that render blank are dropped, so the integration's default (a sender, say) applies. */
function renderOptional(source: string | undefined, scope: TemplateContext, mode: Mode = "text"): string | undefined {
  if (source === undefined) return undefined;
  const out = render(source, scope, mode);
  return out.trim() === "" ? undefined : out;
}

/** Strings anywhere inside push `data` and chat `blocks` are templates too. */
function renderDeep(value: unknown, scope: TemplateContext): unknown {
  if (typeof value === "string") return render(value, scope);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, scope));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderDeep(item, scope)]));
  }
  return value;
}

function renderBadge(badge: number | string | undefined, scope: TemplateContext): number | undefined {
  if (badge === undefined || typeof badge === "number") return badge;
  const out = render(badge, scope).trim();
  if (out === "") return undefined;
  if (!/^\d+$/.test(out)) throw new Error(`badge must render to a whole number, got "${out.slice(0, 40)}"`);
  return Number(out);
}

const compact = <T extends object>(content: T): T =>
  Object.fromEntries(Object.entries(content).filter(([, value]) => value !== undefined)) as T;

function renderRedirect(redirect: { url: string; target?: string } | undefined, scope: TemplateContext): InAppRedirectContent | undefined {
  if (redirect === undefined) return undefined;
  return compact({ url: render(redirect.url, scope), target: redirect.target });
}

function renderAction(
  action: { label: string; redirect?: { url: string; target?: string } } | undefined,
  scope: TemplateContext,
): InAppActionContent | undefined {
  if (action === undefined) return undefined;
  return compact({ label: render(action.label, scope), redirect: renderRedirect(action.redirect, scope) });
}

const renderers: { [C in Channel]: (template: TemplateOf<C>, scope: TemplateContext) => ContentByChannel[C] } = {
  email: (t, scope): EmailContent =>
    compact({
      subject: render(t.subject, scope),
      html: renderOptional(t.html, scope, "html"),
      text: renderOptional(t.text, scope),
      from: renderOptional(t.from, scope),
      replyTo: renderOptional(t.replyTo, scope),
    }),
  sms: (t, scope): SmsContent => ({ body: render(t.body, scope) }),
  push: (t, scope): PushContent =>
    compact({
      title: render(t.title, scope),
      body: render(t.body, scope),
      data: t.data === undefined ? undefined : (renderDeep(t.data, scope) as Record<string, unknown>),
      badge: renderBadge(t.badge, scope),
      sound: renderOptional(t.sound, scope),
      imageUrl: renderOptional(t.imageUrl, scope),
    }),
  chat: (t, scope): ChatContent =>
    compact({
      text: render(t.text, scope),
      blocks: t.blocks === undefined ? undefined : (renderDeep(t.blocks, scope) as Record<string, unknown>[]),
    }),
  in_app: (t, scope): InAppContent =>
    compact({
      subject: renderOptional(t.subject, scope),
      body: render(t.body, scope),
      avatar: renderOptional(t.avatar, scope),
      primaryAction: renderAction(t.primaryAction, scope),
      secondaryAction: renderAction(t.secondaryAction, scope),
      redirect: renderRedirect(t.redirect, scope),
      data: t.data === undefined ? undefined : (renderDeep(t.data, scope) as Record<string, unknown>),
    }),
};

function renderStep<C extends Channel>(
  step: StepOf<C>,
  ctx: TemplateContext,
  locale: string | null | undefined,
  layout: LayoutSource | null,
): RenderResult<C> {
  const variants = step.locales as Record<string, Partial<TemplateOf<C>>> | undefined;
  const picked = localizedTemplate(step.template as TemplateOf<C>, variants, locale);
  const renderer = renderers[step.type as C];
  let content = renderer(picked.template, ctx);
  // The layout wraps what the step rendered, with the step's own variables.
  if (step.type === "email" && layout) {
    const email = content as EmailContent;
    content = compact({ ...email, ...layoutEmail(email, layout, (source, mode) => render(source, ctx, mode)) }) as ContentByChannel[C];
  }
  return { ok: true, channel: step.type as C, content, locale: picked.locale };
}

/**
 * Renders a channel step's (localised) template. A template error — syntax, unknown filter, a limit —
 * comes back as `template_error` with Liquid's message and never throws, so one bad template fails
 * one message, not the batch.
 */
export function renderChannel<C extends Channel>(
  step: ChannelStep & { type: C },
  ctx: TemplateContext,
  locale?: string | null,
  assets?: RenderAssets,
): RenderResult<C> {
  try {
    return withPartials(assets?.partials, () => renderStep(step as StepOf<C>, ctx, locale, assets?.layout ?? null));
  } catch (error) {
    return { ok: false, code: "template_error", message: error instanceof Error ? error.message : String(error) };
  }
}

const isString = (v: unknown): v is string => typeof v === "string";
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isBadge = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isBlocks = (v: unknown): v is Record<string, unknown>[] => Array.isArray(v) && v.every(isRecord);

const isRedirect = (v: unknown): v is InAppRedirectContent =>
  isRecord(v) && isString(v.url) && (v.target === undefined || isString(v.target));
const isAction = (v: unknown): v is InAppActionContent =>
  isRecord(v) && isString(v.label) && (v.redirect === undefined || isRedirect(v.redirect));

type FieldChecks<T> = { [K in keyof T]-?: (v: unknown) => v is NonNullable<T[K]> };

// Delivery sets `headers` (List-Unsubscribe): a trigger may not override or drop them.
const overridable: { [C in Channel]: Partial<FieldChecks<ContentByChannel[C]>> } = {
  email: { subject: isString, html: isString, text: isString, from: isString, replyTo: isString },
  sms: { body: isString },
  push: { title: isString, body: isString, data: isRecord, badge: isBadge, sound: isString, imageUrl: isString },
  chat: { text: isString, blocks: isBlocks },
  in_app: {
    subject: isString,
    body: isString,
    avatar: isString,
    primaryAction: isAction,
    secondaryAction: isAction,
    redirect: isRedirect,
    data: isRecord,
  },
};

function overlay<T extends object>(content: T, patch: Record<string, unknown>, checks: Partial<FieldChecks<T>>): T {
  const out = { ...content };
  for (const key of Object.keys(checks) as (keyof T & string)[]) {
    const value = patch[key];
    if (checks[key]?.(value)) out[key] = value as T[keyof T & string];
  }
  return out;
}

/**
 * Applies a trigger's `overrides[channel]` (e.g. `overrides.email.subject`) over rendered content.
 * Overrides are literal, not Liquid; unknown fields and values of the wrong type are ignored.
 */
export function applyOverrides<C extends Channel>(
  channel: C,
  content: ContentByChannel[C],
  overrides: Record<string, unknown> | undefined,
): ContentByChannel[C] {
  const patch = overrides?.[channel];
  if (!isRecord(patch)) return content;
  return overlay(content, patch, overridable[channel]);
}

/**
 * Email content with every line break in a header-bound field (subject, from, replyTo) turned
 * into a space. The API refuses them in what it stores, but a template can still render one from
 * a payload or subscriber value, and a line break in a header starts another header (`Bcc:`).
 */
export function foldHeaderFields<C extends Channel>(channel: C, content: ContentByChannel[C]): ContentByChannel[C] {
  if (channel !== "email") return content;
  const email = { ...(content as EmailContent) };
  for (const field of ["subject", "from", "replyTo"] as const) {
    const value = email[field];
    if (typeof value === "string") email[field] = value.replace(/[\r\n]+/g, " ");
  }
  return email as ContentByChannel[C];
}

/** Renders one Liquid string (a delay's `until`, a digest or throttle key); errors come back as values. */
export function renderText(source: string, ctx: TemplateContext): { ok: true; text: string } | { ok: false; message: string } {
  try {
    return { ok: true, text: render(source, ctx) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** Renders every string inside a value (a trigger_workflow payload, an update_subscriber `data`); errors come back as values. */
export function renderValue(value: unknown, ctx: TemplateContext): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: renderDeep(value, ctx) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

type Issue = { path: (string | number)[]; message: string };

/** Every Liquid string inside a value (push `data`, chat `blocks`, a template's fields), with its path. */
function liquidStrings(value: unknown, path: (string | number)[]): [(string | number)[], string][] {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => liquidStrings(item, [...path, i]));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, item]) => liquidStrings(item, [...path, k]));
  return [];
}

/** A template parsed as it renders (for the partials it names), or the parser's complaint. */
export function parseTemplate(source: string, mode: Mode = "text"): { ok: true; templates: Template[] } | { ok: false; message: string } {
  try {
    return { ok: true, templates: engines[mode].parse(source) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** The parser's complaint about one template, or null when it parses. */
function parseError(mode: Mode, source: string): string | null {
  if (!source.includes("{{") && !source.includes("{%")) return null;
  try {
    engines[mode].parse(source);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why one plain-text Liquid string (a translation) does not parse, or null. */
export const liquidTextIssue = (source: string): string | null => parseError("text", source);

/**
 * Parses every Liquid template of a workflow's steps (each channel's fields in the base template
 * and in every locale variant, a delay's `until`, digest and throttle keys, a fetch's request, the
 * values of trigger_workflow and update_subscriber steps) wherever they sit in the tree, with the engine that
 * renders them, so a template that could never render is refused when it is saved rather than
 * failing every send. Paths are those of the workflow's input (`steps.0.locales.de.subject`).
 */
export function templateIssues(steps: readonly Step[]): Issue[] {
  return placeSteps(steps).flatMap(({ step, at }) =>
    liquidSourcesOf(step, at).flatMap(([path, source]) => {
      // The email body is rendered with HTML escaping on: parse it with that engine.
      const mode: Mode = step.type === "email" && path.at(-1) === "html" ? "html" : "text";
      const message = parseError(mode, source);
      return message === null ? [] : [{ path, message: `Liquid: ${message}` }];
    }),
  );
}

/** The Liquid strings one step renders, with their paths in the workflow document. */
function liquidSourcesOf(step: Step, at: (string | number)[]): [(string | number)[], string][] {
  if (isChannelStep(step))
    return [...liquidStrings(step.template, [...at, "template"]), ...liquidStrings(step.locales ?? {}, [...at, "locales"])];
  switch (step.type) {
    case "delay":
      return typeof step.until === "string" ? [[[...at, "until"], step.until]] : [];
    case "digest":
    case "throttle":
      return step.key !== undefined ? [[[...at, "key"], step.key]] : [];
    case "http":
      return liquidStrings(step.request, [...at, "request"]).filter(([path]) => path.at(-1) !== "method");
    case "trigger_workflow":
      return liquidStrings(step.payload ?? {}, [...at, "payload"]);
    case "update_subscriber":
      return liquidStrings(step.set, [...at, "set"]);
    default:
      return [];
  }
}
