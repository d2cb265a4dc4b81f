import { Checkbox } from "../../ui/Input";
import { PlanSection, Status } from "./PlanSection";
import { type PromotionChoice, type PromotionDiff, promotable } from "./queries";

type Patch = PromotionDiff["brand"]["patch"];

/** What promoting would do to one piece of content in the target: new, only there, or its JSON Patch. */
function ContentChanges({ status, patch, to }: { status: string; patch: Patch; to: string }) {
  if (status === "unchanged") return <span className="muted">Same content in both</span>;
  if (status === "removed") return <span className="muted">Only in {to}: a promotion leaves it as it is</span>;
  if (status === "added") return <span>New in {to}</span>;
  return (
    <details>
      <summary>
        {patch.length} change{patch.length === 1 ? "" : "s"}: {[...new Set(patch.map((op) => op.path))].slice(0, 4).join(", ")}
        {patch.length > 4 ? ", …" : ""}
      </summary>
      <pre className="patch">{JSON.stringify(patch, null, 2)}</pre>
    </details>
  );
}

/**
 * Layouts, partials, the brand and translations in the plan. Layouts and partials are not picked:
 * they go with the workflows that name or render them. The brand and each locale are ticked.
 */
export function ContentSections({
  diff,
  to,
  picked,
  pick,
}: {
  diff: PromotionDiff;
  to: string;
  picked: PromotionChoice;
  pick: (next: Partial<PromotionChoice>) => void;
}) {
  const content = (kind: "layouts" | "partials", what: string) => (
    <PlanSection
      id={`promote-${kind}`}
      title={kind === "layouts" ? "Layouts" : "Partials"}
      note={`Promoted with the workflows that ${what} them, never on their own: a workflow never arrives without them.`}
      rows={diff[kind]}
      empty={`No ${kind} in either environment.`}
      columns={[kind === "layouts" ? "Layout" : "Partial", "Status", `What changes in ${to}`]}
      row={(c) => (
        <tr key={c.key} data-content={`${kind}:${c.key}`} data-status={c.status}>
          <td>
            <code>{c.key}</code>
          </td>
          <td>
            <Status status={c.status} />
          </td>
          <td>
            <ContentChanges status={c.status} patch={c.patch} to={to} />
          </td>
        </tr>
      )}
    />
  );
  return (
    <>
      {content("layouts", "name")}
      {content("partials", "render")}
      <PlanSection
        id="promote-brand"
        title="Brand"
        note={`Copied only when ticked: ${to}'s brand becomes a new version.`}
        rows={[diff.brand]}
        empty=""
        columns={[{ label: "Promote" }, "Status", `What changes in ${to}`]}
        row={(b) => (
          <tr key="brand" data-content="brand" data-status={b.status}>
            <td>
              <Checkbox
                aria-label="Promote the brand"
                disabled={!promotable(b)}
                checked={picked.brand}
                onChange={(e) => pick({ brand: e.target.checked })}
              />
            </td>
            <td>
              <Status status={b.status} />
            </td>
            <td>
              <ContentChanges status={b.status} patch={b.patch} to={to} />
            </td>
          </tr>
        )}
      />
      <PlanSection
        id="promote-translations"
        title="Translations"
        note={`A ticked locale's texts replace ${to}'s. A workflow that uses keys ${to}'s default locale lacks is refused unless that locale comes too.`}
        rows={diff.translations}
        empty="No translations in either environment."
        columns={[{ label: "Promote" }, "Locale", "Status", `What changes in ${to}`]}
        row={(t) => (
          <tr key={t.locale} data-content={`translations:${t.locale}`} data-status={t.status}>
            <td>
              <Checkbox
                aria-label={`Promote locale ${t.locale}`}
                disabled={!promotable(t)}
                checked={picked.locales.includes(t.locale)}
                onChange={(e) =>
                  pick({ locales: e.target.checked ? [...picked.locales, t.locale] : picked.locales.filter((l) => l !== t.locale) })
                }
              />
            </td>
            <td>
              <code>{t.locale}</code>
            </td>
            <td>
              <Status status={t.status} />
            </td>
            <td>
              <ContentChanges status={t.status} patch={t.patch} to={to} />
            </td>
          </tr>
        )}
      />
    </>
  );
}
