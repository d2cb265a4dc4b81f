// A tenant's stored settings, as the engine decides by them and D1 keeps them: no imports but
// the brand's shape, so the engine stays apart from storage.
import type { BrandColors, BrandDefinition } from "./brand";

type ChannelName = "email" | "sms" | "push" | "chat" | "in_app";

/**
 * A tenant's default preferences: what its subscribers get unless they chose otherwise.
 * `enabled: false` turns a whole workflow off; a channel flag beats the tenant's global one.
 */
export interface TenantPreferences {
  channels?: Partial<Record<ChannelName, boolean>>;
  workflows?: Record<string, { enabled?: boolean; channels?: Partial<Record<ChannelName, boolean>> }>;
}

/** The fields of the environment's brand a tenant overrides; left out, the environment's apply. */
export type TenantBrand = Partial<Omit<BrandDefinition, "colors">> & { colors?: Partial<BrandColors> };

/** What templates read as `tenant` and delivery keeps of a trigger's tenant. */
export interface TenantView {
  id: string;
  name: string | null;
  data: Record<string, unknown>;
}
