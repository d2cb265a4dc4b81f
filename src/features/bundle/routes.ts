import type { BatchItem } from "drizzle-orm/batch";
import type { Actor } from "../../env";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import type { AuditContext } from "../../db/queries/audit";
import { auditContextOf } from "../audit/record";
import { changedFields, summaryOf } from "../content/versions";
import type { Data } from "../data";
import { layoutDefinitionOf } from "../layouts/repository";
import { partialDefinitionOf } from "../partials/repository";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import { type Current, pushPlan } from "./plan";
import { pushErrors } from "./checks";
import { pushRepository } from "./repository";
import { type PushChange, PushInput, PushResult } from "./schemas";

export const bundleRoutes = createRouter();

/** Everything the environment holds that a push compares against. */
async function currentOf(data: Data): Promise<Current> {
  const [workflows, layouts, partials, brand, translations] = await Promise.all([
    data.repository(pushRepository).workflows(),
    data.layouts.all(),
    data.partials.all(),
    data.brand.get(),
    data.translations.list(),
  ]);
  const byKey = <T extends { key: string }>(items: T[]) => new Map(items.map((i) => [i.key, i]));
  return {
    workflows: byKey(workflows),
    layouts: byKey(layouts),
    partials: byKey(partials),
    brand,
    translations: new Map(translations.map((t) => [t.locale, t])),
  };
}

/** The statements of one resource's change; `order` puts what others render before them, removals last. */
async function statementsOf(
  data: Data,
  change: PushChange,
  input: PushInput,
  current: Current,
  revision: number,
  context: AuditContext,
  now: Date,
): Promise<BatchItem<"sqlite">[]> {
  const { key } = change;
  const pushed = <T extends { key: string }>(items: T[]) => items.find((i) => i.key === key)!;
  switch (change.resource) {
    case "workflow": {
      const workflows = data.workflows;
      const before = current.workflows.get(key);
      if (change.change === "added") return [...workflows.createStatements(pushed(input.workflows), context, {}, now)];
      if (change.change === "removed") return [...workflows.removeStatements(before!, context, now)];
      return [...workflows.updateStatements(before!, pushed(input.workflows), context, {}, now)];
    }
    case "layout":
    case "partial": {
      const store = change.resource === "layout" ? data.layouts.statements : data.partials.statements;
      const definition =
        change.resource === "layout" ? layoutDefinitionOf(pushed(input.layouts)) : partialDefinitionOf(pushed(input.partials));
      if (change.change === "added") return [...store.create(definition as never, context, {}, now)];
      const row = await store.row(key);
      if (!row) throw new ApiError("validation_failed", `The ${change.resource} "${key}" was deleted while pushing: push again.`);
      if (change.change === "removed") return [...store.remove(row as never, context, now)];
      const summary = summaryOf(changedFields(store.definitionOf(row as never), definition));
      const write = { action: "updated", audit: "updated", actor: context.actor, summary } as const;
      return [...store.update(row as never, definition as never, write, context, now)];
    }
    case "brand":
      return [...data.brand.saveStatements(current.brand, input.brand!, context, context.actor, now)];
    case "translations": {
      const before = current.translations.get(key);
      if (change.change === "removed") return [...data.translations.statements.remove(before!, context, now)];
      const { keys } = input.translations.find((t) => t.locale === key)!;
      return [...data.translations.statements.put({ locale: key, keys, before, revision }, context, {}, now)];
    }
  }
}

/** What is rendered lands before what renders it; removals after everything that stops using them. */
const ORDER = { partial: 0, layout: 1, translations: 2, brand: 3, workflow: 4 } as const;
const rank = (c: PushChange) => (c.change === "removed" ? 10 - ORDER[c.resource] : ORDER[c.resource]);

bundleRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/content/push",
    tags: ["Workflows"],
    summary: "Push workflows, layouts, partials, brand and translations at once",
    description:
      "What `clarion push` sends: the environment's content as files hold it. Every resource is checked as its own save checks it, against the environment as the push would leave it (a workflow may name a layout the same push adds); any problem answers 422 with every error, each path under its resource (`workflows.0.steps.1.template.subject`), and changes nothing. Otherwise every added, changed or removed resource becomes a new version, all in one D1 batch, audited with the actor name `cli`. Removal only with `prune: true`; the brand is never removed. `dryRun: true` answers the same list and changes nothing.",
    security,
    request: { body: { required: true, content: json(PushInput) } },
    responses: { 200: { description: "Per resource, what the push changed (or would change)", content: json(PushResult) } },
    errors: ["validation_failed", "content_changed"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const data = c.var.data;
    const [current, settings] = await Promise.all([currentOf(data), data.translations.settings()]);
    const errors = await pushErrors(c, input, current, settings.defaultLocale);
    if (errors.length > 0)
      throw new ApiError("validation_failed", `The push has ${errors.length} problem(s): nothing was changed.`, errors);
    const changes = pushPlan(input, current);
    const todo = changes.filter((ch) => ch.change !== "unchanged");
    if (input.dryRun || todo.length === 0) return c.json({ dryRun: input.dryRun, changes }, 200);

    const audit = auditContextOf(c);
    // The key's type and id stay: the log says which key's CLI made the change.
    const actor: Actor = { ...audit.actor, name: "cli" };
    const context = { ...audit, actor };
    const now = new Date();
    const statements: BatchItem<"sqlite">[] = [];
    const locales = todo.some((ch) => ch.resource === "translations");
    if (locales) statements.push(data.translations.statements.bumpRevision(now));
    for (const change of [...todo].sort((a, b) => rank(a) - rank(b))) {
      statements.push(...(await statementsOf(data, change, input, current, settings.revision + 1, context, now)));
    }
    const content = todo.some((ch) => ch.resource === "layout" || ch.resource === "partial");
    await data.repository(pushRepository).apply(todo, statements, content);
    forgetEnvironmentGates(data.environmentId);
    return c.json({ dryRun: false, changes }, 200);
  },
);
