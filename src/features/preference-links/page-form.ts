import { CHANNELS, type Channel, type Step } from "../../engine/steps";
import { allSteps } from "../../engine/workflow-tree";
import { sign, verifySignature } from "../../lib/secrets";
import type { SubscriberPreferences } from "../subscribers/preferences-schemas";
import type { SubscriberPreferencesUpdate } from "../subscribers/preferences-schemas";

/** A workflow as the page lists it: only the channels its steps send on, inside branch paths too. */
export interface ChoosableWorkflow {
  key: string;
  name: string;
  description: string | null;
  channels: Channel[];
}

export const choosable = (rows: { key: string; name: string; description: string | null; steps: Step[] }[]): ChoosableWorkflow[] =>
  rows
    .map((row) => {
      const steps = allSteps(row.steps);
      return {
        key: row.key,
        name: row.name,
        description: row.description,
        channels: CHANNELS.filter((channel) => steps.some((step) => step.type === channel)),
      };
    })
    .filter((wf) => wf.channels.length > 0);

/** Field names: `channel:email`, `workflow:<key>:email`. Keys never hold a colon. */
export const channelField = (channel: Channel) => `channel:${channel}`;
export const workflowField = (key: string, channel: Channel) => `workflow:${key}:${channel}`;

/** What a workflow's box shows: its own flag, else the global one. */
export const effective = (prefs: SubscriberPreferences, key: string, channel: Channel) =>
  prefs.workflows[key]?.[channel] ?? prefs.channels[channel];

/**
 * The form as a preferences update. A ticked box sends its name; an unticked one sends nothing.
 * A workflow's box that agrees with the global switch is stored as "follow the global switch"
 * (null), so turning a global switch off later still reaches that workflow.
 */
export function updateFromForm(form: FormData, workflows: ChoosableWorkflow[]): SubscriberPreferencesUpdate {
  const channels = Object.fromEntries(CHANNELS.map((c) => [c, form.has(channelField(c))])) as Record<Channel, boolean>;
  const perWorkflow = Object.fromEntries(
    workflows.map((wf) => [
      wf.key,
      Object.fromEntries(
        wf.channels.map((c) => {
          const on = form.has(workflowField(wf.key, c));
          return [c, on === channels[c] ? null : on];
        }),
      ),
    ]),
  );
  return { channels, workflows: perWorkflow };
}

/** How long a rendered form may be submitted: a day, then the page must be loaded again. */
const NONCE_TTL_MS = 24 * 60 * 60 * 1000;

/** A per-render value bound to the link: a form posted from anywhere else, or replayed days later, is refused. */
export async function formNonce(encryptionKey: string | undefined, token: string, now = Date.now()): Promise<string> {
  return `${now}.${await sign(encryptionKey, `preference-form:${token}:${now}`)}`;
}

export async function checkNonce(encryptionKey: string | undefined, token: string, nonce: unknown, now = Date.now()): Promise<boolean> {
  if (typeof nonce !== "string") return false;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{32})$/.exec(nonce);
  if (!match) return false;
  const issued = Number(match[1]);
  if (!(issued <= now && now - issued < NONCE_TTL_MS)) return false;
  return verifySignature(encryptionKey, `preference-form:${token}:${issued}`, match[2]!);
}
