import { resend } from "./email/resend";
import { sandboxChat, sandboxEmail, sandboxPush, sandboxSms } from "./sandbox/sandbox";
import type { ProviderAdapter } from "./types";

/** Every provider Clarion can send through, by the id stored on an integration. */
export const PROVIDERS = {
  "sandbox-email": sandboxEmail,
  "sandbox-sms": sandboxSms,
  "sandbox-push": sandboxPush,
  "sandbox-chat": sandboxChat,
  resend,
} as const satisfies Record<string, ProviderAdapter<"email"> | ProviderAdapter<"sms"> | ProviderAdapter<"push"> | ProviderAdapter<"chat">>;

export type ProviderId = keyof typeof PROVIDERS;

export const providerFor = (id: string): ProviderAdapter | undefined =>
  Object.hasOwn(PROVIDERS, id) ? (PROVIDERS[id as ProviderId] as ProviderAdapter) : undefined;
