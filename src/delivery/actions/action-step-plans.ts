import type { TemplateContext } from "../../engine/content";
import { addDuration, parseDuration } from "../../engine/durations";
import { nextLocalTime, zoneOf } from "../../engine/local-time";
import { renderText } from "../../engine/templates";
import type { Step } from "../../engine/steps";

type DelayStep = Extract<Step, { type: "delay" }>;

/** A delay shorter than this runs through without waiting on an alarm. */
export const NEGLIGIBLE_DELAY_MS = 1_000;

export type DelayPlan = { ok: true; fireAt: Date; past: boolean } | { ok: false; message: string };

/** When a delay step releases one recipient: after a duration, at a rendered instant, or at a local time in their zone. */
export function planDelay(step: DelayStep, ctx: TemplateContext, timezone: string | null, now: Date): DelayPlan {
  if (step.for !== undefined) {
    const at = addDuration(now, step.for);
    return at ? { ok: true, fireAt: at, past: false } : { ok: false, message: `"${step.for}" is not an ISO 8601 duration.` };
  }
  const until = step.until!;
  if (typeof until === "object") {
    return { ok: true, fireAt: nextLocalTime(now, until.localTime, zoneOf(timezone), until.days), past: false };
  }
  const rendered = renderText(until, ctx);
  if (!rendered.ok) return { ok: false, message: rendered.message };
  const text = rendered.text.trim();
  const at = /^-?\d+$/.test(text) ? new Date(Number(text)) : new Date(text);
  if (Number.isNaN(at.getTime())) return { ok: false, message: `delay.until rendered "${text.slice(0, 60)}", which is not a date.` };
  return { ok: true, fireAt: at, past: at.getTime() <= now.getTime() };
}

/** A window's length in milliseconds, for digest and throttle steps (validated by the step schema). */
export const windowMs = (window: string) => Math.max(1, parseDuration(window) ?? 0);

/** The rendered key of a digest or throttle step; an empty key groups everything of the subscriber. */
export function stepKey(source: string | undefined, ctx: TemplateContext): string {
  if (!source) return "";
  const rendered = renderText(source, ctx);
  return rendered.ok ? rendered.text.trim() : "";
}
