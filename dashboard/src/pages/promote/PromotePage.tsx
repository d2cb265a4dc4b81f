import { useSearchParams } from "react-router";
import { useSession } from "../../session/session";
import { PageHeader } from "../../ui/PageHeader";
import { PromotionPlan } from "./PromotionPlan";
import "./promote.css";
import { Select } from "../../ui/Select";
import { Field } from "../../ui/Field";

/**
 * Moving tested workflows and content from one environment to another (admin only, as it spans
 * environments): pick the two, see what differs, tick workflows, the brand and locales, dry run, then apply.
 */
export function PromotePage() {
  const { who } = useSession();
  const slugs = who?.environments.map((e) => e.slug) ?? [];
  const [params, setParams] = useSearchParams();
  const from = params.get("from") ?? (slugs.includes("development") ? "development" : (slugs[0] ?? ""));
  const to =
    params.get("to") ?? (slugs.includes("production") && from !== "production" ? "production" : (slugs.find((s) => s !== from) ?? ""));
  const choose = (side: "from" | "to", slug: string) => setParams({ from, to, [side]: slug }, { replace: true });
  const picker = (side: "from" | "to", label: string, value: string) => (
    <Field label={label}>
      <Select id={`promote-${side}`} value={value} onChange={(e) => choose(side, e.target.value)}>
        {slugs.map((slug) => (
          <option key={slug} value={slug}>
            {slug}
          </option>
        ))}
      </Select>
    </Field>
  );
  return (
    <>
      <PageHeader title="Promote" />
      <p className="muted">
        Copies workflows (with the layouts and partials they use), the brand and locales' translations from one environment to another; each
        becomes a new version there, authored "promotion from …". Variables' secret values and integrations' credentials are never copied:
        the plan says which need setting by hand.
      </p>
      <div className="filters">
        {picker("from", "From", from)}
        <span className="promote-arrow" aria-hidden="true">
          →
        </span>
        {picker("to", "To", to)}
      </div>
      {slugs.length < 2 ? (
        <p className="empty muted">Promotion needs two environments: create another on the Environments page.</p>
      ) : from === to ? (
        <p className="empty muted">Choose two different environments.</p>
      ) : (
        <PromotionPlan key={`${from}>${to}`} from={from} to={to} />
      )}
    </>
  );
}
