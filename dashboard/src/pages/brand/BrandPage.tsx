import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { Textarea } from "../../ui/Textarea";
import { dottedFields, type Snapshot, SnapshotHistory } from "../content-versions/SnapshotHistory";
import {
  BRAND,
  type Brand,
  type BrandInput,
  brandDiffQuery,
  brandQuery,
  brandVersionsQuery,
  mintPreviewLink,
  revertBrand,
  saveBrandMutation,
} from "./queries";
import "./brand.css";
import { BrandSample } from "./BrandSample";

const COLOURS = [
  ["primary", "Primary (buttons)"],
  ["background", "Background"],
  ["text", "Text"],
  ["link", "Links"],
] as const;

/** The environment's brand kit: what templates read as `brand.*` and the hosted pages show, with a preview of the preference page. */
export function BrandPage() {
  const api = useApi();
  const brand = useQuery(brandQuery(api));
  return (
    <>
      <PageHeader title="Brand" />
      <p className="muted">
        Every template reads this as <code>{"{{ brand.name }}"}</code>, <code>{"{{ brand.colors.primary }}"}</code>, … and the hosted
        preference and unsubscribe pages show its name, logo and primary colour. Each save is a new version; triggers already accepted keep
        the version they were accepted with.
      </p>
      {brand.error ? <ProblemView error={brand.error} /> : null}
      {brand.isPending ? <Loading what="the brand" /> : null}
      {brand.data ? <BrandForm key={brand.data.version} saved={brand.data} /> : null}
      {brand.data && brand.data.version > 0 ? <BrandHistory current={brand.data.version} /> : null}
    </>
  );
}

/** The brand's versions: each compared with the one before it, or restored (only over the version this page read). */
function BrandHistory({ current }: { current: number }) {
  const api = useApi();
  const versions = useQuery(brandVersionsQuery(api));
  if (versions.error) return <ProblemView error={versions.error} />;
  if (!versions.data) return <Loading what="the brand's versions" />;
  const snapshots: Snapshot[] = versions.data.data.map((v) => ({
    version: v.version,
    action: v.action,
    author: v.author,
    createdAt: v.createdAt,
    fields: dottedFields(v.definition),
  }));
  return (
    <SnapshotHistory
      title="Brand versions"
      versions={snapshots}
      current={current}
      historyKey={BRAND}
      diffQuery={(from, to) => brandDiffQuery(api, from, to)}
      restore={(v) => revertBrand(api, v.version, current)}
      restoreNote="Triggers already accepted keep the version they were accepted with."
      isConflict={(error): error is ApiError => error instanceof ApiError && error.problem.code === "brand_changed"}
    />
  );
}

function BrandForm({ saved }: { saved: Brand }) {
  const api = useApi();
  const [draft, setDraft] = useState<BrandInput>({
    name: saved.name,
    logoUrl: saved.logoUrl,
    colors: saved.colors,
    footer: saved.footer,
    address: saved.address,
    socialLinks: saved.socialLinks,
  });
  const save = useMutation(saveBrandMutation(api));
  const fieldError = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const text = (value: string) => (value.trim() === "" ? null : value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ body: draft, version: saved.version });
  };
  return (
    <div className="brand-layout">
      <Card className="brand-form">
        <form onSubmit={submit} aria-label="Brand">
          <Field label="Name" error={fieldError("name")} hint="Empty: the hosted pages name no sender.">
            <Input value={draft.name ?? ""} maxLength={100} onChange={(e) => setDraft({ ...draft, name: text(e.target.value) })} />
          </Field>
          <Field label="Logo URL" error={fieldError("logoUrl")} hint="An https image.">
            <Input type="url" value={draft.logoUrl ?? ""} onChange={(e) => setDraft({ ...draft, logoUrl: text(e.target.value) })} />
          </Field>
          {COLOURS.map(([slot, label]) => (
            <Field key={slot} label={label} error={fieldError(`colors.${slot}`)} hint="#rrggbb">
              <Input
                value={draft.colors[slot]}
                maxLength={7}
                spellCheck={false}
                onChange={(e) => setDraft({ ...draft, colors: { ...draft.colors, [slot]: e.target.value } })}
              />
            </Field>
          ))}
          <Field label="Footer" error={fieldError("footer")}>
            <Textarea value={draft.footer ?? ""} rows={2} onChange={(e) => setDraft({ ...draft, footer: text(e.target.value) })} />
          </Field>
          <Field label="Postal address" error={fieldError("address")}>
            <Input value={draft.address ?? ""} onChange={(e) => setDraft({ ...draft, address: text(e.target.value) })} />
          </Field>
          {save.error && !(save.error instanceof ApiError && save.error.problem.errors?.length) ? <ProblemView error={save.error} /> : null}
          <Button type="submit" variant="primary" disabled={save.isPending}>
            Save brand
          </Button>{" "}
          <span className="muted small" role="status">
            {save.isSuccess ? `Saved as version ${save.data.version}.` : `Version ${saved.version}.`}
          </span>
        </form>
      </Card>
      <PagePreview brand={draft} />
    </div>
  );
}

/** The preference page as its recipients would see it with this brand, before saving; and a real one for a subscriber. */
function PagePreview({ brand }: { brand: BrandInput }) {
  const api = useApi();
  const [subscriberId, setSubscriberId] = useState("");
  const mint = useMutation({ mutationFn: (id: string) => mintPreviewLink(api, id) });
  return (
    <Card className="brand-preview" aria-label="Preference page preview">
      <h2>Preference page preview</h2>
      <BrandSample brand={brand} />
      <form
        className="inline-form"
        aria-label="Open the real page"
        onSubmit={(e) => {
          e.preventDefault();
          mint.mutate(subscriberId.trim());
        }}
      >
        <Field label="Preview for subscriber" error={mint.error instanceof ApiError ? mint.error.problem.detail : undefined}>
          <Input value={subscriberId} placeholder="user-42" onChange={(e) => setSubscriberId(e.target.value)} required />
        </Field>
        <Button type="submit" disabled={mint.isPending || !subscriberId.trim()}>
          Get preview link
        </Button>
        {mint.data ? (
          <a href={mint.data.url} target="_blank" rel="noreferrer">
            Open the preference page of {mint.variables}
          </a>
        ) : null}
      </form>
    </Card>
  );
}
