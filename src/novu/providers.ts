// Novu's chat and push `providerId`s and the Clarion providers that deliver to the same kind of address.
import type { ChatAddress } from "../contract/recipients";

type Kind = "push" | "chat";

/** Novu providerId → Clarion provider and channel. Novu's `slack` with only `channel` is Clarion's bot-token `slack-api`. */
const FROM_NOVU: Record<string, { provider: string; kind: Kind }> = {
  fcm: { provider: "fcm", kind: "push" },
  apns: { provider: "apns", kind: "push" },
  expo: { provider: "expo", kind: "push" },
  "one-signal": { provider: "onesignal", kind: "push" },
  slack: { provider: "slack", kind: "chat" },
  "novu-slack": { provider: "slack", kind: "chat" },
  discord: { provider: "discord", kind: "chat" },
  msteams: { provider: "teams", kind: "chat" },
  mattermost: { provider: "mattermost", kind: "chat" },
  telegram: { provider: "telegram", kind: "chat" },
  "chat-webhook": { provider: "webhook", kind: "chat" },
};

/** Clarion provider → the Novu providerId answered back (each is in the SDKs' provider enum). */
const TO_NOVU: Record<string, string> = {
  fcm: "fcm",
  apns: "apns",
  expo: "expo",
  onesignal: "one-signal",
  slack: "slack",
  "slack-api": "slack",
  discord: "discord",
  teams: "msteams",
  mattermost: "mattermost",
  telegram: "telegram",
  webhook: "chat-webhook",
};

export const NOVU_PROVIDER_IDS = Object.keys(FROM_NOVU);

export const clarionProviderOf = (providerId: string) => (Object.hasOwn(FROM_NOVU, providerId) ? FROM_NOVU[providerId] : undefined);
export const novuProviderOf = (provider: string) => (Object.hasOwn(TO_NOVU, provider) ? TO_NOVU[provider] : undefined);

export interface NovuCredentials {
  webhookUrl?: string | undefined;
  channel?: string | undefined;
  deviceTokens?: string[] | undefined;
}

/** Clarion's addresses for one Novu channel setting; a push provider takes device tokens, a chat provider a webhook or a channel. */
export function addressesOf(
  providerId: string,
  credentials: NovuCredentials,
): { push: { provider: string; token: string }[]; chat: ChatAddress[] } | undefined {
  const target = clarionProviderOf(providerId);
  if (!target) return undefined;
  if (target.kind === "push")
    return { push: (credentials.deviceTokens ?? []).map((token) => ({ provider: target.provider, token })), chat: [] };
  if (credentials.webhookUrl) return { push: [], chat: [{ provider: target.provider, webhookUrl: credentials.webhookUrl }] };
  if (credentials.channel) {
    const provider = target.provider === "slack" ? "slack-api" : target.provider;
    return { push: [], chat: [{ provider, channelId: credentials.channel }] };
  }
  return { push: [], chat: [] };
}
