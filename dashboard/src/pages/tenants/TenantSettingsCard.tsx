import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { ProblemView } from "../../ui/ProblemView";
import { Textarea } from "../../ui/Textarea";
import { BrandSample } from "../brand/BrandSample";
import { brandQuery } from "../brand/queries";
import { type Tenant, type TenantBrand, updateTenantMutation } from "./queries";

const COLOURS = [
  ["primary", "Primary colour"],
  ["background", "Background colour"],
  ["text", "Text colour"],
  ["link", "Link colour"],
] as const;
type Colour = (typeof COLOURS)[number][0];

/** The brand overrides as typed: an empty field is the environment's. */
interface BrandDraft {
  name: string;
  logoUrl: string;
  footer: string;
  colors: Record<Colour, string>;
}

const draftOf = (brand: TenantBrand): BrandDraft => ({
  name: brand.name ?? "",
  logoUrl: brand.logoUrl ?? "",
  footer: brand.footer ?? "",
  colors: {
    primary: brand.colors?.primary ?? "",
    background: brand.colors?.background ?? "",
    text: brand.colors?.text ?? "",
    link: brand.colors?.link ?? "",
  },
});

/** The overrides to save: only the fields typed, the others left to the environment's brand; null when none is. */
function brandOf(draft: BrandDraft, stored: TenantBrand): TenantBrand | null {
  const colors = Object.fromEntries(COLOURS.flatMap(([slot]) => (draft.colors[slot].trim() ? [[slot, draft.colors[slot].trim()]] : [])));
  const brand: TenantBrand = {
    // Fields this form does not edit (address, social links) are kept as stored.
    ...(stored.address !== undefined ? { address: stored.address } : {}),
    ...(stored.socialLinks !== undefined ? { socialLinks: stored.socialLinks } : {}),
    ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
    ...(draft.logoUrl.trim() ? { logoUrl: draft.logoUrl.trim() } : {}),
    ...(draft.footer.trim() ? { footer: draft.footer.trim() } : {}),
    ...(Object.keys(colors).length ? { colors } : {}),
  };
  return Object.keys(brand).length ? brand : null;
}

/** `data` as typed: a JSON object, or why not. */
function parseData(text: string): { ok: true; value: Record<string, unknown> | null } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: null };
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, error: 'A JSON object, such as {"plan": "pro"}.' };
  } catch (error) {
    return { ok: false, error: `Not JSON: ${(error as Error).message}` };
  }
}

/** The tenant's name, data (templates read `tenant.data.*`) and brand overrides, with the preference page as its recipients see it. */
export function TenantSettingsCard({ tenant }: { tenant: Tenant }) {
  const api = useApi();
  const environmentBrand = useQuery(brandQuery(api));
  const [name, setName] = useState(tenant.name ?? "");
  const [dataText, setDataText] = useState(Object.keys(tenant.data).length ? JSON.stringify(tenant.data, null, 2) : "");
  const [brand, setBrand] = useState(() => draftOf(tenant.brand));
  const save = useMutation(updateTenantMutation(api, tenant.id));
  const data = parseData(dataText);
  const fieldError = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const overrides = brandOf(brand, tenant.brand);
  const base = environmentBrand.data;
  // The environment's brand, overridden field by field, as delivery merges them.
  const merged = {
    name: overrides?.name ?? base?.name ?? null,
    logoUrl: overrides?.logoUrl ?? base?.logoUrl ?? null,
    colors: { primary: overrides?.colors?.primary ?? base?.colors.primary },
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!data.ok) return;
    save.mutate({ ...(name.trim() ? { name: name.trim() } : {}), data: data.value, brand: overrides });
  };

  return (
    <div className="tenant-layout">
      <Card as="form" onSubmit={submit} aria-label="Tenant settings" noValidate>
        <h2>Settings</h2>
        <Field label="Name" error={fieldError("name")}>
          <Input value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field
          label="Data (JSON)"
          hint="Templates read it as tenant.data.*; empty: none."
          error={data.ok ? fieldError("data") : data.error}
        >
          <Textarea className="code" rows={4} value={dataText} spellCheck={false} onChange={(e) => setDataText(e.target.value)} />
        </Field>
        <fieldset>
          <legend>Brand overrides</legend>
          <p className="muted small">Each field left empty is the environment's brand.</p>
          <Field label="Brand name" error={fieldError("brand.name")}>
            <Input value={brand.name} placeholder={base?.name ?? ""} onChange={(e) => setBrand({ ...brand, name: e.target.value })} />
          </Field>
          <Field label="Logo URL" hint="An https image." error={fieldError("brand.logoUrl")}>
            <Input type="url" value={brand.logoUrl} onChange={(e) => setBrand({ ...brand, logoUrl: e.target.value })} />
          </Field>
          {COLOURS.map(([slot, label]) => (
            <Field key={slot} label={label} hint="#rrggbb" error={fieldError(`brand.colors.${slot}`)}>
              <Input
                value={brand.colors[slot]}
                maxLength={7}
                spellCheck={false}
                placeholder={base?.colors[slot] ?? ""}
                onChange={(e) => setBrand({ ...brand, colors: { ...brand.colors, [slot]: e.target.value } })}
              />
            </Field>
          ))}
          <Field label="Footer" error={fieldError("brand.footer")}>
            <Textarea rows={2} value={brand.footer} onChange={(e) => setBrand({ ...brand, footer: e.target.value })} />
          </Field>
        </fieldset>
        {save.error && !(save.error instanceof ApiError && save.error.problem.errors?.length) ? <ProblemView error={save.error} /> : null}
        <div className="tenant-actions">
          <Button type="submit" variant="primary" disabled={save.isPending || !data.ok}>
            {save.isPending ? "Saving…" : "Save tenant"}
          </Button>
          {save.isSuccess ? (
            <span className="muted small" role="status">
              Saved.
            </span>
          ) : null}
        </div>
      </Card>
      <Card className="brand-preview" aria-label="Preference page preview">
        <h2>Preference page preview</h2>
        <p className="muted small">As this tenant's recipients see it: its overrides over the environment's brand.</p>
        <BrandSample brand={merged} />
      </Card>
    </div>
  );
}
