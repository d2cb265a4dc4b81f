import type { BrandDefinition } from "../contract/brand";
import type { TenantView } from "../contract/tenants";
import type { TRANSLATOR, Translator } from "./translate";
import type { InAppContent } from "../contract/in-app-content";

export type { InAppActionContent, InAppContent, InAppRedirectContent } from "../contract/in-app-content";
/** What a channel step renders to, before a provider adapter turns it into its own request. */
export interface EmailContent {
  subject: string;
  html?: string;
  text?: string;
  from?: string;
  replyTo?: string;
  /** Extra MIME headers (`List-Unsubscribe`), set by delivery; each adapter passes them in its provider's wire format. */
  headers?: Record<string, string>;
}
export interface SmsContent {
  body: string;
}
export interface PushContent {
  title: string;
  body: string;
  data?: Record<string, unknown>;
  badge?: number;
  sound?: string;
  imageUrl?: string;
}
export interface ChatContent {
  text: string;
  blocks?: Record<string, unknown>[];
}

export interface ContentByChannel {
  email: EmailContent;
  sms: SmsContent;
  push: PushContent;
  chat: ChatContent;
  in_app: InAppContent;
}

/** The status of earlier steps, as conditions and templates see them under `steps.<id>`. */
export interface StepOutcomeView {
  /** A channel step's message status; for a control step `ran`, `skipped`, `failed`, or while open `waiting`/`retrying`. */
  status: string;
  count?: number;
  events?: unknown[];
  /** A branch: the id of the path it took (`default` for its default); absent when none did. */
  path?: string;
  /** A wait: whether its event came. */
  outcome?: "matched" | "timed_out";
  /** A fetch: the answer it got (headers allow-listed, a JSON body parsed). */
  response?: { status: number; headers: Record<string, string>; body: unknown };
  /** Why a control step was skipped or failed, or how it ended: `condition`, `http_failed`, `trigger_depth_exceeded`. */
  reason?: string;
  /** When the step was decided or until when it waits (ISO 8601), for the run view. */
  at?: string;
  until?: string;
  /** What else the run view says about it (a fetch's attempts, the transaction a trigger_workflow started). */
  detail?: Record<string, unknown>;
}

/** Everything a template or condition may read. */
export interface TemplateContext {
  payload: Record<string, unknown>;
  subscriber: Record<string, unknown>;
  actor: Record<string, unknown> | null;
  vars: Record<string, string>;
  workflow: { key: string; name: string };
  step: { id: string; type: string };
  steps: Record<string, StepOutcomeView>;
  /** One-click unsubscribe link of this subscriber and workflow; "" when the workflow offers none. */
  unsubscribe_url?: string;
  /** This subscriber's hosted preference page. */
  preferences_url?: string;
  /** The environment's brand kit, as pinned when the trigger was accepted. */
  brand?: BrandDefinition;
  /** The signal a wait step's `if` is read against (`signal.name`, `signal.data.*`); absent elsewhere. */
  signal?: { name: string; data: unknown };
  /** The trigger's tenant: `tenant.id`, `tenant.name`, `tenant.data.*`. */
  tenant?: TenantView;
  /** Where `t` finds this subscriber's texts; a symbol, so no template can read it. */
  [TRANSLATOR]?: Translator;
}

/** What one recipient's control step (a branch, a fetch, a wait, ...) came to, as its run's home keeps it. */
export interface RunStepRow {
  subscriberId: string;
  stepId: string;
  outcome: StepOutcomeView;
}
