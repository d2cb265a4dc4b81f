import type { PromotionResult } from "./queries";

/** What a promotion did, or what its dry run says it would do: the same answer either way. */
export function PromotionResultView({ result }: { result: PromotionResult }) {
  return (
    <div className={`promotion-result ${result.dryRun ? "dry" : "done"}`} role="status" data-dry-run={result.dryRun}>
      <strong>
        {result.dryRun ? `Dry run: nothing was changed. Promoting would do this in ${result.to}:` : `Promoted to ${result.to}:`}
      </strong>
      <ul>
        {result.workflows.map((w) => (
          <li key={w.key} data-result={w.key} data-outcome={w.outcome}>
            <code>{w.key}</code> {w.outcome === "unchanged" ? `unchanged (version ${w.version})` : `${w.outcome} as version ${w.version}`}
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
