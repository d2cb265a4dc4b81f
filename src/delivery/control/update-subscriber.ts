import type { z } from "@hono/zod-openapi";
import { SubscriberInput } from "../../contract/recipients";
import { upsertSubscribers } from "../../db/queries/subscribers";
import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import type { UpdateSubscriberStep } from "../../engine/steps";
import { renderText, renderValue } from "../../engine/templates";
import { TRANSLATOR } from "../../engine/translate";
import { contextFor, type Loaded, type Recipient } from "../recipients/recipients-state";
import type { ControlRunner } from "./runner";

type Step = z.infer<typeof UpdateSubscriberStep>;

const TEXT_FIELDS = ["locale", "timezone", "firstName", "lastName"] as const;

type Decided = { recipient: Recipient; input: SubscriberInput; fields: string[] } | { recipient: Recipient; outcome: StepOutcomeView };

const failed = (reason: string, detail: Record<string, unknown>): StepOutcomeView => ({ status: "failed", reason, detail });

/**
 * What the step writes for one recipient, checked as `POST /sub` checks it: text fields rendered
 * (one that renders blank is left as it is), `data` rendered deep and merged over the stored data
 * key by key. Never an address: the step's schema has no field for one.
 */
function decide(step: Step, r: Recipient): Decided {
  const context = contextFor(r, step);
  const input: Record<string, unknown> = { subscriberId: r.profile.subscriberId };
  for (const field of TEXT_FIELDS) {
    const source = step.set[field];
    if (source === undefined) continue;
    const rendered = renderText(source, context);
    if (!rendered.ok)
      return { recipient: r, outcome: failed("render_failed", { message: `set.${field} does not render: ${rendered.message}` }) };
    const text = rendered.text.trim();
    if (text !== "") input[field] = text;
  }
  if (step.set.data !== undefined) {
    const rendered = renderValue(step.set.data, context);
    if (!rendered.ok)
      return { recipient: r, outcome: failed("render_failed", { message: `set.data does not render: ${rendered.message}` }) };
    const stored = r.context.subscriber.data;
    const base = stored !== null && typeof stored === "object" && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
    input.data = { ...base, ...(rendered.value as Record<string, unknown>) };
  }
  const parsed = SubscriberInput.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ path: `set.${i.path.join(".")}`, message: i.message }));
    return {
      recipient: r,
      outcome: failed("invalid_value", {
        message: `The rendered values are not a valid subscriber: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
        errors,
      }),
    };
  }
  return { recipient: r, input: parsed.data, fields: Object.keys(input).filter((k) => k !== "subscriberId") };
}

/**
 * Writes the recipients' new profiles with the upsert `POST /sub` runs (the timeline's `updated`
 * and `subscriber.updated`, in the same D1 batch), then updates them in memory: the steps after
 * this one render the new values. Recorded once per recipient, so a re-run never writes again.
 */
export const updateSubscriberRunner: ControlRunner<Step> = {
  async run(run, step, pending): Promise<RunStepRow[]> {
    const decided = pending.map((r) => decide(step, r));
    const writes = decided.flatMap((d) => ("input" in d && d.fields.length ? [d] : []));
    if (writes.length) {
      const { environmentId } = run.job;
      const { eventIds } = await upsertSubscribers(
        run.ctx.db,
        environmentId,
        writes.map((w) => w.input),
        new Date(),
      );
      run.ctx.emit(eventIds.map((id) => ({ id, environmentId })));
      for (const { recipient, input } of writes) remember(recipient, input, run.loaded);
    }
    return decided.map((d) => ({
      subscriberId: d.recipient.profile.subscriberId,
      stepId: step.id,
      outcome: "outcome" in d ? d.outcome : { status: "ran", detail: { fields: d.fields } },
    }));
  },
};

/** The recipient as the write left it, for the rest of this run. */
function remember(r: Recipient, input: SubscriberInput, loaded: Loaded) {
  const { subscriberId: _id, ...written } = input;
  r.context = { ...r.context, subscriber: { ...r.context.subscriber, ...written } };
  if (input.locale) {
    r.locale = input.locale;
    if (loaded.translatorFor) r.context[TRANSLATOR] = loaded.translatorFor(input.locale);
  }
  if (input.timezone) r.timezone = input.timezone;
}
