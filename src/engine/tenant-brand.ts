import type { BrandDefinition } from "../contract/brand";
import type { TenantBrand } from "../contract/tenants";

const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The environment's brand with the tenant's fields over it: each field (each colour) the tenant sets wins. */
export function mergeBrand(base: BrandDefinition, tenant: TenantBrand | null | undefined): BrandDefinition {
  if (!tenant) return base;
  const { colors, ...rest } = tenant;
  return { ...base, ...defined(rest), colors: { ...base.colors, ...defined(colors ?? {}) } };
}
