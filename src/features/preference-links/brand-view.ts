import type { BrandDefinition } from "../../contract/brand";
import type { Branding } from "../../db/queries/preference-link-settings";

/**
 * The hosted pages' branding, read from the brand kit: its name, logo and primary colour. The
 * preference page's own branding (0.x) moved into the brand; only the pages' texts stay here.
 */
export const brandingOf = (brand: BrandDefinition, translations: Branding["translations"]): Branding => ({
  brandName: brand.name,
  logoUrl: brand.logoUrl,
  accentColor: brand.colors.primary,
  translations,
});
