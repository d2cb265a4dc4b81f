import type { Channel } from "../features/workflows/steps";
import type { IntegrationConfig } from "../providers/types";

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
    list.filter((a) => !integration || integration.provider.startsWith("sandbox-") || a.provider === integration.provider).map((a) => a.address);
  switch (channel) {
    case "email":
      return profile.email ? [profile.email] : [];
    case "sms":
      return profile.phone ? [profile.phone] : [];
    case "push":
      return matching(profile.pushTokens);
    case "chat":
      return matching(profile.chatWebhooks);
  }
}
