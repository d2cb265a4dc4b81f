import { z } from "@hono/zod-openapi";
import { PreferencePageTranslations } from "./messages";

export const PreferenceLink = z
  .object({
    url: z.url().openapi({
      description:
        "The hosted preference page of this subscriber; the token is opaque. Valid until the link secret is rotated or the subscriber is erased.",
    }),
    unsubscribeUrl: z.url().openapi({
      description: "One-click unsubscribe from all email (`POST` with `List-Unsubscribe=One-Click`); `GET` shows a confirmation button.",
    }),
    expiresAt: z.iso.datetime().nullable().openapi({ description: "Always null: links last until the secret is rotated." }),
  })
  .openapi("PreferenceLink");
export type PreferenceLink = z.infer<typeof PreferenceLink>;

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

export const PreferencePageBranding = z
  .object({
    brandName: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .nullable()
      .openapi({ description: "Shown above the title and in the unsubscribe question; null: the pages name no sender." }),
    logoUrl: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .nullable()
      .openapi({ description: "An https image shown above the title (at most 48 px high)." }),
    accentColor: z
      .string()
      .regex(HEX_COLOR, "Use a colour as #rrggbb.")
      .nullable()
      .openapi({ description: "`#rrggbb` for buttons and focus rings; null: Clarion's blue." }),
    translations: PreferencePageTranslations,
  })
  .openapi("PreferencePageBranding");
export type PreferencePageBranding = z.infer<typeof PreferencePageBranding>;

export const PreferencePageBrandingUpdate = PreferencePageBranding.partial()
  .extend({
    translations: PreferencePageTranslations.nullable()
      .optional()
      .openapi({ description: "Replaces every stored translation; `null` or `{}` leaves the pages in English." }),
  })
  .strict()
  .openapi("PreferencePageBrandingUpdate", { description: "Fields given replace the stored ones; `null` clears one." });

export const SecretRotated = z.object({ rotatedAt: z.iso.datetime() }).openapi("PreferenceLinkSecretRotated", {
  description: "Every unsubscribe and preference link minted before this moment now shows the neutral 404 page.",
});
