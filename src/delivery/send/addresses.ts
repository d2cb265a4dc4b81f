import type { Channel } from "../../engine/steps";
import type { IntegrationConfig } from "../../providers/types";

export interface RecipientProfile {
  subscriberId: string;
  email: string | null;
  phone: string | null;
  pushTokens: { provider: string; address: string }[];
  chatWebhooks: { provider: string; address: string }[];
}

/**
 * Where a channel step goes for one subscriber through one integration. Push tokens and chat
 * webhooks are registered per provider; a sandbox integration accepts any of them.
 */
export function addressesFor(channel: Channel, profile: RecipientProfile, integration: IntegrationConfig | undefined): string[] {
  const matching = (list: { provider: string; address: string }[]) =>
    list
      .filter((a) => !integration || integration.provider.startsWith("sandbox-") || a.provider === integration.provider)
      .map((a) => a.address);
  switch (channel) {
    case "email":
      return profile.email ? [profile.email] : [];
    case "sms":
      return profile.phone ? [profile.phone] : [];
    case "push":
      return matching(profile.pushTokens);
    case "chat":
      return matching(profile.chatWebhooks);
    case "in_app":
      // The Inbox is addressed by the subscriber itself.
      return [profile.subscriberId];
  }
}

/**
 * How an address is shown on a message. A chat webhook URL is itself a credential and a push
 * token identifies a device, so both are shortened; emails and phone numbers stay readable.
 */
export function displayAddress(channel: Channel, address: string): string {
  if (channel === "email" || channel === "sms" || channel === "in_app") return address;
  if (/^https?:\/\//.test(address)) {
    try {
      return `${new URL(address).origin}/…${address.slice(-4)}`;
    } catch {
      return `…${address.slice(-4)}`;
    }
  }
  return address.length > 16 ? `${address.slice(0, 8)}…${address.slice(-4)}` : address;
}
