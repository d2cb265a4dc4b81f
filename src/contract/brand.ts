// The brand kit's shape and defaults, with no imports: the D1 schema, the API, templates and the
// hosted pages all read it from here.

export interface BrandColors {
  primary: string;
  background: string;
  text: string;
  link: string;
}

/** What `PUT /v1/brand` takes and every template reads as `brand`. */
export interface BrandDefinition {
  name: string | null;
  logoUrl: string | null;
  colors: BrandColors;
  footer: string | null;
  address: string | null;
  socialLinks: { name: string; url: string }[];
}

/** The brand of an environment that never saved one: Clarion's neutral colours, no name. */
export const DEFAULT_BRAND: BrandDefinition = {
  name: null,
  logoUrl: null,
  colors: { primary: "#1d4ed8", background: "#ffffff", text: "#111827", link: "#1d4ed8" },
  footer: null,
  address: null,
  socialLinks: [],
};
