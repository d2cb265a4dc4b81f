import { discord } from "./chat/discord";
import { mattermost } from "./chat/mattermost";
import { slack } from "./chat/slack";
import { slackApi } from "./chat/slack-api";
import { teams } from "./chat/teams";
import { telegram } from "./chat/telegram";
import { webhook } from "./chat/webhook";
import { brevo } from "./email/brevo";
import { mailgun } from "./email/mailgun";
import { postmark } from "./email/postmark";
import { resend } from "./email/resend";
import { sendgrid } from "./email/sendgrid";
import { ses } from "./email/ses";
import { apns } from "./push/apns";
import { expo } from "./push/expo";
import { fcm } from "./push/fcm";
import { onesignal } from "./push/onesignal";
import { webpush } from "./push/webpush";
import { sandboxChat, sandboxEmail, sandboxPush, sandboxSms } from "./sandbox/sandbox";
import { plivo } from "./sms/plivo";
import { sns } from "./sms/sns";
import { telnyx } from "./sms/telnyx";
import { twilio } from "./sms/twilio";
import { vonage } from "./sms/vonage";
import type { ProviderAdapter } from "./types";

/** Every provider Clarion can send through, by the id stored on an integration. */
export const PROVIDERS = {
  "sandbox-email": sandboxEmail,
  "sandbox-sms": sandboxSms,
  "sandbox-push": sandboxPush,
  "sandbox-chat": sandboxChat,
  fcm,
  apns,
  expo,
  onesignal,
  webpush,
  resend,
  sendgrid,
  postmark,
  mailgun,
  ses,
  brevo,
  slack,
  "slack-api": slackApi,
  discord,
  teams,
  telegram,
  mattermost,
  webhook,
  twilio,
  vonage,
  plivo,
  telnyx,
  sns,
} as const satisfies Record<string, ProviderAdapter<"email"> | ProviderAdapter<"sms"> | ProviderAdapter<"push"> | ProviderAdapter<"chat">>;

export type ProviderId = keyof typeof PROVIDERS;

export const providerFor = (id: string): ProviderAdapter | undefined =>
  Object.hasOwn(PROVIDERS, id) ? (PROVIDERS[id as ProviderId] as ProviderAdapter) : undefined;

/**
 * Whether a provider's reports can reach a message by the provider's id: only a provider with a
 * status webhook (provider-callbacks) looks a message up that way. An unknown id, or none, answers true.
 */
export function reportsByProviderId(id: string | null | undefined): boolean {
  if (!id) return true;
  const adapter = providerFor(id);
  return adapter === undefined || adapter.webhook !== undefined;
}
