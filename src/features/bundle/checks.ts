import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, type FieldError } from "../../lib/errors";
import { refuseHttp } from "../brand/routes";
import type { ContentReads } from "../content/reads";
import { checkLayout } from "../layouts/checks";
import { checkPartial } from "../partials/checks";
import { checkFetchDestinations } from "../workflows/destination-checks";
import { checkWorkflowTemplates } from "../workflows/template-checks";
import type { Current } from "./plan";
import type { PushInput } from "./schemas";

/**
 * The environment as it will be once the push has landed: what the checks of one save read
 * (layouts, partials, the default locale's keys) read here, so a workflow may name a layout the
 * same push adds, and may not name one it prunes.
 */
function afterPush(input: PushInput, current: Current, defaultLocale: string): ContentReads {
  const kept = <T>(map: ReadonlyMap<string, T>, pushed: readonly { key: string }[]) => {
    const out = new Map(input.prune ? [] : map);
    for (const p of pushed) out.delete(p.key);
    return [...out.values()];
  };
  const layouts = [...kept(current.layouts, input.layouts), ...input.layouts];
  const partials = [...kept(current.partials, input.partials), ...input.partials];
  const pushedLocales = new Map(input.translations.map((t) => [t.locale, t]));
  return {
    layouts: { all: async () => layouts },
    partials: { all: async () => partials },
    translations: {
      settings: async () => ({ defaultLocale }),
      find: async (locale) => pushedLocales.get(locale) ?? (input.prune ? undefined : current.translations.get(locale)),
    },
  };
}

/** A check's problem as field errors under `prefix` (the resource in the push's body). */
async function collect(prefix: string, check: () => void | Promise<void>): Promise<FieldError[]> {
  try {
    await check();
    return [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (!error.errors?.length) return [{ path: prefix, message: error.message }];
    return error.errors.map((e) => ({ path: e.path === "(root)" ? prefix : `${prefix}.${e.path}`, message: e.message }));
  }
}

/**
 * Every pushed resource checked as its own save checks it (after the body's zod schema), against
 * the environment as the push leaves it: all the problems, each under its resource's path.
 */
export async function pushErrors(c: Context<AppEnv>, input: PushInput, current: Current, defaultLocale: string): Promise<FieldError[]> {
  const reads = afterPush(input, current, defaultLocale);
  const destinations = destinationOptions(c.env);
  const errors: FieldError[][] = await Promise.all([
    ...input.workflows.map((w, i) =>
      collect(`workflows.${i}`, async () => {
        checkFetchDestinations(w.steps, destinations);
        await checkWorkflowTemplates(reads, w.steps);
      }),
    ),
    ...input.layouts.map((l, i) => collect(`layouts.${i}`, () => checkLayout(reads, l))),
    ...input.partials.map((p, i) => collect(`partials.${i}`, () => checkPartial(reads, p))),
    ...(input.brand ? [collect("brand", () => refuseHttp(c, input.brand!))] : []),
  ]);
  const defaults = (await reads.layouts.all()).filter((l) => "isDefault" in l && l.isDefault === true);
  if (defaults.length > 1) {
    errors.push([
      {
        path: "layouts",
        message: `One default layout at most, not ${defaults.length}: ${defaults.map((l) => `"${l.key}"`).join(", ")}.`,
      },
    ]);
  }
  return errors.flat();
}
