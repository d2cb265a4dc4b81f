import type { PromotionResult } from "./queries";

const outcomeText = (outcome: string, version: number) =>
  outcome === "unchanged" ? `unchanged (version ${version})` : `${outcome} as version ${version}`;

/** What a promotion did, or what its dry run says it would do: the same answer either way. */
export function PromotionResultView({ result }: { result: PromotionResult }) {
  const content = [
    ...result.layouts.map((l) => ({ id: `layouts:${l.key}`, label: `layout ${l.key}`, ...l })),
    ...result.partials.map((p) => ({ id: `partials:${p.key}`, label: `partial ${p.key}`, ...p })),
    ...(result.brand ? [{ id: "brand", label: "the brand", ...result.brand }] : []),
    ...result.translations.map((t) => ({ id: `translations:${t.locale}`, label: `locale ${t.locale}`, ...t })),
  ];
  return (
    <div className={`promotion-result ${result.dryRun ? "dry" : "done"}`} role="status" data-dry-run={result.dryRun}>
      <strong>
        {result.dryRun ? `Dry run: nothing was changed. Promoting would do this in ${result.to}:` : `Promoted to ${result.to}:`}
      </strong>
      <ul>
        {result.workflows.map((w) => (
          <li key={w.key} data-result={w.key} data-outcome={w.outcome}>
            <code>{w.key}</code> {outcomeText(w.outcome, w.version)}
          </li>
        ))}
        {content.map((c) => (
          <li key={c.id} data-content-result={c.id} data-outcome={c.outcome}>
            {c.label} {outcomeText(c.outcome, c.version)}
          </li>
        ))}
      </ul>
      {result.needsValue.length ? (
        <p>
          Secret variables to set in {result.to} by hand: {result.needsValue.join(", ")}.
        </p>
      ) : null}
    </div>
  );
}
