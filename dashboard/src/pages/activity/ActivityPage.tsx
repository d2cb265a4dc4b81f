import { Link } from "react-router";
import { PageHeader } from "../../ui/PageHeader";
import "./activity.css";
import { FilterBar, TYPED } from "./FilterBar";
import { type Tab, TABS, useActivityFilters } from "./filters";
import { MessagesTable } from "./MessagesTable";
import { StatsCharts } from "./StatsCharts";
import { TriggersTable } from "./TriggersTable";
import { Button } from "../../ui/Button";

const LABELS: Record<Tab, string> = { messages: "Messages", triggers: "Triggers", charts: "Charts" };

/** Triggers, messages and charts of the environment, filtered by the query string and kept up to date. */
export function ActivityPage() {
  const { filters, tab, update, search } = useActivityFilters();
  // A status means something else on each tab, so it stays behind when the tab changes.
  const tabLink = (t: Tab) => {
    const params = new URLSearchParams(search);
    params.delete("status");
    params.set("tab", t);
    return `/activity?${params}`;
  };
  return (
    <>
      <PageHeader title="Activity">
        <Button asChild variant="primary">
          <Link to="/activity/new">New trigger</Link>
        </Button>
      </PageHeader>
      <nav className="tabs" aria-label="Activity views">
        {TABS.map((t) => (
          <Link key={t} to={tabLink(t)} aria-current={t === tab ? "page" : undefined}>
            {LABELS[t]}
          </Link>
        ))}
      </nav>
      {/* Started afresh when the typed values change in the address (a link, Back), not when a choice does: a select keeps its focus. */}
      <FilterBar key={[tab, ...TYPED.map((k) => filters[k] ?? "")].join("\n")} tab={tab} filters={filters} update={update} />
      {tab === "messages" ? (
        <MessagesTable filters={filters} />
      ) : tab === "triggers" ? (
        <TriggersTable filters={filters} />
      ) : (
        <StatsCharts filters={filters} update={update} />
      )}
    </>
  );
}
