import type { z } from "@hono/zod-openapi";
import type { AuditContext } from "../../db/queries/audit";
import type { DestinationOptions } from "../../lib/destinations";
import { ApiError, type FieldError, fieldErrors } from "../../lib/errors";
import { nestKeys, type TranslationKeys } from "../../engine/translate";
import type { ProposalResource } from "../../contract/proposals";
import type { Data } from "../data";
import { checkLayout } from "../layouts/checks";
import { layoutDefinitionOf } from "../layouts/repository";
import { LayoutInput } from "../layouts/schemas";
import { checkPartial } from "../partials/checks";
import { PartialInput } from "../partials/schemas";
import { TranslationInput } from "../translations/schemas";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import { checkFetchDestinations } from "../workflows/destination-checks";
import { WorkflowInput } from "../workflows/schemas";
import { definitionOf } from "../workflows/shapes";
import { checkWorkflowTemplates } from "../workflows/template-checks";
import { layoutPreview, partialPreview, translationsPreview, workflowPreview } from "./preview";
import type { ProposalPreview } from "./schemas";

/** The resource as it is now: its version and its content as its PUT takes it. */
export interface Current {
  version: number;
  content: object;
}

/** What checking proposed content came to: the typed input a save takes, or every problem with its field path. */
export type Checked<Input> = { ok: true; input: Input; content: object } | { ok: false; errors: FieldError[] };

/** A save's outcome for a proposal: the version it made (or found), or stale. */
export type Saved = { status: "ok"; version: number } | { status: "stale" };

/**
 * One kind of resource a proposal may change: how to read it, check content as its save does,
 * preview it and save it against a base version. The service is the same for every kind.
 */
export interface ProposalKind<Input = unknown> {
  current(data: Data, key: string): Promise<Current | null>;
  check(data: Data, key: string, content: unknown, destinations: DestinationOptions): Promise<Checked<Input>>;
  preview(data: Data, key: string, content: unknown): Promise<ProposalPreview | null>;
  save(data: Data, key: string, input: Input, context: AuditContext, baseVersion: number | null): Promise<Saved>;
}

/** A save-time check's refusal as field errors: the checks throw the problem a save would answer with. */
async function problemsOf(check: () => Promise<void> | void): Promise<FieldError[]> {
  try {
    await check();
    return [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return error.errors?.length ? error.errors : [{ path: "(root)", message: error.detail }];
  }
}

/** Zod first (the request schema of the resource's PUT), then the key, then the save-time checks. */
async function checked<S extends z.ZodType>(
  schema: S,
  content: unknown,
  keyed: string | null,
  normalise: (input: z.infer<S>) => object,
  checks: (input: z.infer<S>) => Promise<void> | void,
): Promise<Checked<z.infer<S>>> {
  const parsed = schema.safeParse(content);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error.issues) };
  const input = parsed.data as z.infer<S> & { key?: string };
  if (keyed !== null && input.key !== keyed) {
    return { ok: false, errors: [{ path: "key", message: `Must be "${keyed}", the key the proposal names.` }] };
  }
  const errors = await problemsOf(() => checks(input));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, input, content: normalise(input) };
}

type Outcome<T> = { status: "ok"; value: T } | { status: "missing" } | { status: "stale"; current: number };
const savedOf = <T extends { version: number }>(outcome: Outcome<T> | T | null): Saved => {
  if (outcome === null) return { status: "stale" };
  if ("status" in outcome) return outcome.status === "ok" ? { status: "ok", version: outcome.value.version } : { status: "stale" };
  return { status: "ok", version: outcome.version };
};

const workflowKind: ProposalKind<WorkflowInput> = {
  async current(data, key) {
    const found = await data.workflows.find(key);
    return found ? { version: found.version, content: definitionOf(found) } : null;
  },
  check: (data, key, content, destinations) =>
    checked(WorkflowInput, content, key, definitionOf, async (input) => {
      checkFetchDestinations(input.steps, destinations);
      await checkWorkflowTemplates(data, input.steps);
    }),
  preview: (data, key, content) => workflowPreview(data, key, content),
  async save(data, key, input, context, baseVersion) {
    if (baseVersion === null) return savedOf(await data.workflows.create(input, context));
    return savedOf(await data.workflows.update(key, input, context, { ifMatch: [baseVersion] }));
  },
};

const layoutKind: ProposalKind<LayoutInput> = {
  async current(data, key) {
    const found = await data.layouts.find(key);
    return found ? { version: found.version, content: layoutDefinitionOf(found) } : null;
  },
  check: (data, key, content) => checked(LayoutInput, content, key, layoutDefinitionOf, (input) => checkLayout(data, input)),
  preview: (data, _key, content) => layoutPreview(data, content),
  async save(data, key, input, context, baseVersion) {
    if (baseVersion === null) return savedOf(await data.layouts.create(input, context));
    return savedOf(await data.layouts.update(key, input, context, { ifMatch: [baseVersion] }));
  },
};

const partialDefinition = (p: PartialInput) => ({
  key: p.key,
  name: p.name,
  description: p.description ?? null,
  content: p.content,
  type: p.type,
});

const partialKind: ProposalKind<PartialInput> = {
  async current(data, key) {
    const found = await data.partials.find(key);
    return found ? { version: found.version, content: partialDefinition(found) } : null;
  },
  check: (data, key, content) => checked(PartialInput, content, key, partialDefinition, (input) => checkPartial(data, input)),
  preview: (data, _key, content) => partialPreview(data, content),
  async save(data, key, input, context, baseVersion) {
    if (baseVersion === null) return savedOf(await data.partials.create(input, context));
    return savedOf(await data.partials.update(key, input, context, { ifMatch: [baseVersion] }));
  },
};

/** A locale's keys nested, as `PUT /v1/translations/{locale}` takes them (the key is the locale). */
const translationsKind: ProposalKind<{ keys: TranslationKeys }> = {
  async current(data, locale) {
    const row = await data.translations.find(locale);
    return row ? { version: row.version, content: { keys: nestKeys(row.keys) } } : null;
  },
  check: (_data, _locale, content) =>
    checked(
      TranslationInput,
      content,
      null,
      (input) => ({ keys: nestKeys(input.keys) }),
      () => undefined,
    ),
  preview: async (_data, _locale, content) => translationsPreview(content),
  async save(data, locale, input, context, baseVersion) {
    // A locale that has no row is at version 0 for If-Match (a deleted one too).
    const saved = await data.translations.put(locale, input.keys, context, { ifMatch: [baseVersion ?? 0] });
    if ("stale" in saved) return { status: "stale" };
    if (saved.changed) forgetEnvironmentGates(data.environmentId);
    return { status: "ok", version: saved.row.version };
  },
};

/** A kind with its input type closed over: check and save run together, so nothing unchecked is saved. */
export interface ProposalHandler {
  current: ProposalKind["current"];
  preview: ProposalKind["preview"];
  /** Checks `content` as a save would now, then saves it against `baseVersion`. */
  apply(
    data: Data,
    key: string,
    content: unknown,
    options: { destinations: DestinationOptions; context: AuditContext; baseVersion: number | null },
  ): Promise<Saved | { status: "invalid"; errors: FieldError[] }>;
  /** The content as a save stores it (defaults filled in), for the diff; the content as given when it does not check. */
  normalised(
    data: Data,
    key: string,
    content: unknown,
    destinations: DestinationOptions,
  ): Promise<{ content: unknown; errors: FieldError[] }>;
}

function handlerOf<Input>(kind: ProposalKind<Input>): ProposalHandler {
  return {
    current: kind.current,
    preview: kind.preview,
    async normalised(data, key, content, destinations) {
      const result = await kind.check(data, key, content, destinations);
      return result.ok ? { content: result.content, errors: [] } : { content, errors: result.errors };
    },
    async apply(data, key, content, { destinations, context, baseVersion }) {
      const result = await kind.check(data, key, content, destinations);
      if (!result.ok) return { status: "invalid", errors: result.errors };
      return kind.save(data, key, result.input, context, baseVersion);
    },
  };
}

export const PROPOSAL_KINDS: { [R in ProposalResource]: ProposalHandler } = {
  workflow: handlerOf(workflowKind),
  layout: handlerOf(layoutKind),
  partial: handlerOf(partialKind),
  translations: handlerOf(translationsKind),
};
