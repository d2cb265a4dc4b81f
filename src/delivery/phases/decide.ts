import type { MessageStatus } from "../../db/schema";
import { evaluateCondition } from "../../engine/conditions";
import { holdFor } from "../../engine/delivery-schedule";
import { zoneOf } from "../../engine/local-time";
import { applyOverrides, foldHeaderFields, renderChannel } from "../../engine/templates";
import type { InAppContent } from "../../contract/in-app-content";
import { UNSAFE_URL_MESSAGE, withoutUnsafeUrls } from "../../engine/in-app-urls";
import type { TriggerRecord } from "../../jobs/trigger-record";
import { resolvePreference } from "../../engine/preferences";
import type { ChannelStep } from "../../engine/steps";
import { normaliseAddress } from "../../lib/normalise-address";
import { addressesFor } from "../send/addresses";
import { assetsFor } from "../recipients/render-content";
import { contextFor, FINAL_OR_SENT, keyOf, type Loaded, type Recipient } from "../recipients/recipients-state";

/** A short plain-text view for message lists: the text part, else the HTML without its tags. */
export const preview = (content: Record<string, unknown>) => {
  const plain = [content.text, content.body, content.title].find((v): v is string => typeof v === "string" && v !== "");
  const html = typeof content.html === "string" ? content.html.replace(/<(style|script)[\s\S]*?<\/\1>/gi, "").replace(/<[^>]+>/g, " ") : "";
  return (plain ?? html).replace(/\s+/g, " ").trim().slice(0, 140);
};

export type Decision =
  | { kind: "done"; status: string }
  | { kind: "wait"; until: number; reason: "quiet_hours" | "schedule" }
  | { kind: "final"; status: MessageStatus; code: string; message: string; layoutVersion?: number; detail?: Record<string, unknown> }
  | {
      kind: "send";
      content: Record<string, unknown>;
      /** The version of the layout the email was wrapped in, kept on its message; absent when none applied. */
      layoutVersion?: number;
      warnings?: { field: string; message: string }[];
    };

/** Decides, without I/O, what one channel step does for one recipient. */
export function decide(step: ChannelStep, recipient: Recipient, loaded: Loaded, trigger: TriggerRecord, now: Date): Decision {
  const existing = loaded.existing.get(keyOf(recipient.profile.subscriberId, step.id));
  if (existing && FINAL_OR_SENT.has(existing.status)) return { kind: "done", status: existing.status };
  const final = (status: MessageStatus, code: string, message: string, detail?: Record<string, unknown>): Decision => ({
    kind: "final",
    status,
    code,
    message,
    ...(detail ? { detail } : {}),
  });
  if (recipient.stop) return final(recipient.stop.status, recipient.stop.code, recipient.stop.message);
  const context = contextFor(recipient, step);
  if (step.if && !evaluateCondition(step.if, context, now)) return final("skipped", "condition", "The step's condition was false.");
  const critical = loaded.workflow?.critical ?? false;
  const preference = resolvePreference(
    { subscriberTenant: recipient.tenantPreferences, subscriber: recipient.preferences, tenant: loaded.tenant?.preferences },
    trigger.workflowKey,
    step.type,
    critical,
  );
  if (!preference.allowed) {
    const by = preference.level === "tenant" ? `The tenant's defaults turn off ${step.type}` : `The subscriber opted out of ${step.type}`;
    return final("skipped", "preference", `${by} for this workflow.`, { level: preference.level });
  }
  const chain = loaded.integrations.get(step.type) ?? [];
  const addresses = addressesFor(step.type, recipient.profile, chain[0]);
  if (addresses.length === 0) return final("skipped", "missing_address", `The subscriber has no ${step.type} address.`);
  // Before the critical flag is read: a dead address stays dead for every workflow.
  if (addresses.every((a) => loaded.suppressed.has(normaliseAddress(step.type, a)))) {
    return final("skipped", "suppressed", `The subscriber's ${step.type} address is on the suppression list.`);
  }
  if (chain.length === 0) return final("failed", "no_integration", `No active ${step.type} integration in this environment.`);
  const hold = critical ? null : holdFor(now, recipient.preferences, step.type, zoneOf(recipient.timezone));
  if (hold) return { kind: "wait", until: hold.until.getTime(), reason: hold.reason };
  const assets = assetsFor(step, loaded.content);
  if ("error" in assets) return final("failed", "template_error", assets.error);
  const layout = assets.layout ? { layoutVersion: assets.layout.version } : {};
  const rendered = renderChannel(step, context, recipient.locale, assets);
  if (!rendered.ok) return { ...final("failed", rendered.code, rendered.message), ...layout };
  const content = foldHeaderFields(step.type, applyOverrides(step.type, rendered.content, trigger.overrides ?? {}));
  if (step.type !== "in_app") return { kind: "send", content: content as unknown as Record<string, unknown>, ...layout };
  // A URL rendered from a payload (or given in `overrides.in_app`) that may not be served is left
  // out, and the message says so: the notification still goes, without the link.
  const safe = withoutUnsafeUrls(content as InAppContent);
  return {
    kind: "send",
    content: safe.content as unknown as Record<string, unknown>,
    ...(safe.dropped.length ? { warnings: safe.dropped.map((field) => ({ field, message: `Left out: ${UNSAFE_URL_MESSAGE}` })) } : {}),
  };
}
