import "./brand.css";

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The brand fields the sample shows; a tenant's page passes the environment's brand merged with its overrides. */
export interface SampleBrand {
  name?: string | null;
  logoUrl?: string | null;
  colors?: { primary?: string };
}

/** The hosted preference page in miniature, as its recipients would see it with `brand`. */
export function BrandSample({ brand }: { brand: SampleBrand }) {
  const primary = brand.colors?.primary && HEX.test(brand.colors.primary) ? brand.colors.primary : "#1d4ed8";
  return (
    <div className="page-sample" data-testid="brand-preview">
      {brand.logoUrl ? <img src={brand.logoUrl} alt={brand.name ?? ""} /> : null}
      {brand.name ? <p className="muted small">{brand.name}</p> : null}
      <h3>Notification preferences</h3>
      <p>
        <input type="checkbox" checked readOnly style={{ accentColor: primary }} aria-label="Sample choice" /> Email
      </p>
      <span className="sample-button" style={{ background: primary }}>
        Save
      </span>
    </div>
  );
}
