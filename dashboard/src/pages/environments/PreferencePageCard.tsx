import { useMutation, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { type FormEvent, useState } from "react";
import { ApiError } from "../../api/problem";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { AA, contrastWithWhite } from "./contrast";
import { brandingQuery, mintPreferenceLink, type PreferencePageBranding, rotateLinkSecret, saveBrandingMutation } from "./queries";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** The hosted page's default accent (src/features/preference-links/layout.ts). */
const DEFAULT_ACCENT = "#1d4ed8";
const HEX = /^#[0-9a-fA-F]{6}$/;

/** The hosted preference and unsubscribe pages: their branding, a preview, and revoking every link. */
export function PreferencePageCard({ slug }: { slug: string }) {
  const api = useApi();
  const branding = useQuery(brandingQuery(api, slug));
  return (
    <Card className="settings-card" aria-labelledby="preference-page-title" data-testid="preference-page-settings">
      <h2 id="preference-page-title">Preference page</h2>
      <p className="muted small">
        Every email of a non-critical workflow links to a page where its recipient unsubscribes or chooses channels. It shows this name,
        logo and colour.
      </p>
      {branding.error ? <ProblemView error={branding.error} /> : null}
      {branding.isPending ? <Loading what="the branding" /> : null}
      {/* The form starts from what was stored when it first loaded, and keeps what is typed after that. */}
      {branding.data ? <BrandingForm slug={slug} saved={branding.data} /> : null}
      <Preview slug={slug} />
      <RevokeLinks slug={slug} />
    </Card>
  );
}

function BrandingForm({ slug, saved }: { slug: string; saved: PreferencePageBranding }) {
  const api = useApi();
  const [brandName, setBrandName] = useState(saved.brandName ?? "");
  const [logoUrl, setLogoUrl] = useState(saved.logoUrl ?? "");
  const [accent, setAccent] = useState(saved.accentColor ?? "");
  const save = useMutation(saveBrandingMutation(api, slug));
  const fieldError = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const shown = HEX.test(accent) ? accent : DEFAULT_ACCENT;
  const ratio = contrastWithWhite(shown);

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ brandName: brandName.trim() || null, logoUrl: logoUrl.trim() || null, accentColor: accent.trim() || null });
  }

  return (
    <form onSubmit={submit} aria-label="Preference page branding">
      <Field label="Brand name" error={fieldError("brandName")} hint="Empty: the pages name no sender.">
        <Input value={brandName} maxLength={100} onChange={(e) => setBrandName(e.target.value)} />
      </Field>
      <Field label="Logo URL" error={fieldError("logoUrl")} hint="An https image, shown at most 48 px high.">
        <Input type="url" value={logoUrl} placeholder="https://example.com/logo.svg" onChange={(e) => setLogoUrl(e.target.value)} />
      </Field>
      <div className="field">
        <label htmlFor="accent-color">Accent colour</label>
        <div className="accent-inputs">
          <Input type="color" aria-label="Colour picker" value={shown} onChange={(e) => setAccent(e.target.value)} />
          <Input
            id="accent-color"
            value={accent}
            placeholder={DEFAULT_ACCENT}
            maxLength={7}
            spellCheck={false}
            aria-invalid={fieldError("accentColor") ? true : undefined}
            aria-describedby="accent-contrast"
            onChange={(e) => setAccent(e.target.value)}
          />
          <span className="accent-sample" style={{ background: shown }} aria-hidden="true">
            Aa
          </span>
        </div>
        <span id="accent-contrast" className={`small ${ratio < AA ? "field-error" : "muted"}`} data-testid="contrast">
          {ratio < AA
            ? `Contrast with white ${ratio.toFixed(1)}:1, below the 4.5:1 WCAG AA asks for: the page's buttons and links would be hard to read.`
            : `Contrast with white ${ratio.toFixed(1)}:1: meets WCAG AA.`}
          {accent ? "" : " Empty: Clarion's blue."}
        </span>
        {fieldError("accentColor") ? (
          <span className="field-error" role="alert">
            {fieldError("accentColor")}
          </span>
        ) : null}
      </div>
      {save.error && !fieldError("brandName") && !fieldError("logoUrl") && !fieldError("accentColor") ? (
        <ProblemView error={save.error} />
      ) : null}
      <Button type="submit" variant="primary" disabled={save.isPending}>
        Save branding
      </Button>{" "}
      <span className="muted small" role="status">
        {save.isSuccess ? "Saved." : ""}
      </span>
    </form>
  );
}

/** A real link for one subscriber, so the page is seen as its recipients see it. */
function Preview({ slug }: { slug: string }) {
  const api = useApi();
  const [subscriberId, setSubscriberId] = useState("");
  const mint = useMutation({ mutationFn: (id: string) => mintPreferenceLink(api, slug, id) });
  function submit(event: FormEvent) {
    event.preventDefault();
    mint.mutate(subscriberId.trim());
  }
  return (
    <form className="inline-form preview-form" onSubmit={submit} aria-label="Preview the preference page">
      <Field label="Preview for subscriber" error={mint.error instanceof ApiError ? mint.error.problem.detail : undefined}>
        <Input value={subscriberId} placeholder="user-42" onChange={(e) => setSubscriberId(e.target.value)} required />
      </Field>
      <Button type="submit" disabled={mint.isPending || !subscriberId.trim()}>
        Get preview link
      </Button>
      {mint.data && mint.variables === subscriberId.trim() ? (
        <a href={mint.data.url} target="_blank" rel="noreferrer" data-testid="preview-link">
          Open the preference page of {mint.variables}
        </a>
      ) : null}
    </form>
  );
}

function RevokeLinks({ slug }: { slug: string }) {
  const api = useApi();
  const [dialog, ask] = useConfirm();
  const rotate = useMutation({ mutationFn: () => rotateLinkSecret(api, slug) });
  async function askToRotate() {
    const yes = await ask({
      title: "Revoke every preference and unsubscribe link?",
      body: (
        <p>
          A new link secret replaces the current one. Links in emails already sent stop working (they show a neutral page): use it when
          links leaked. New emails carry working links.
        </p>
      ),
      confirm: "Revoke links",
      danger: true,
    });
    if (yes) rotate.mutate();
  }
  return (
    <div className="revoke-links">
      {dialog}
      {rotate.error ? <ProblemView error={rotate.error} /> : null}
      <Button type="button" variant="danger" onClick={() => void askToRotate()} disabled={rotate.isPending}>
        Rotate link secret
      </Button>{" "}
      <span className="muted small" role="status">
        {rotate.data ? `Links made before ${new Date(rotate.data.rotatedAt).toLocaleString()} no longer work.` : ""}
      </span>
    </div>
  );
}
