import { type FormEvent, useState } from "react";
import { MESSAGE_STATUSES, TRIGGER_STATUSES } from "../../../../src/contract/statuses";
import { SelectFilter } from "../../ui/SelectFilter";
import { type Filters, RANGES, type Tab, type FilterKey } from "./filters";
import { STEP_TYPE_LABEL } from "../../ui/labels";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Field } from "../../ui/Field";

const RANGE_LABELS: Record<string, string> = { "1h": "Last hour", "24h": "Last 24 hours", "7d": "Last 7 days", "30d": "Last 30 days" };
const CHANNELS = ["email", "sms", "push", "chat", "in_app"] as const;
/** The fields typed into rather than chosen. */
export const TYPED = ["workflow", "subscriberId", "transactionId", "provider", "tenant"] as const;
// Placeholders say what an empty field means, as "All channels" does: an example value ("user-42") read as a filter already set.
const TEXT_FIELDS: { key: FilterKey; label: string; placeholder: string }[] = [
  { key: "workflow", label: "Workflow", placeholder: "Any workflow (key)" },
  { key: "subscriberId", label: "Subscriber", placeholder: "Any subscriber (id)" },
  { key: "transactionId", label: "Transaction", placeholder: "Any transaction (id)" },
];

/**
 * The filters of the current tab. Choices apply at once; typed values apply on Enter, on
 * "Apply" or when the field is left, so the list is not asked again at every keystroke.
 */
export function FilterBar({ tab, filters, update }: { tab: Tab; filters: Filters; update: (f: Filters) => void }) {
  const [typed, setTyped] = useState<Filters>(filters);
  // Typed values go along with every change, so choosing a channel does not drop a workflow being typed.
  const apply = (event?: FormEvent, extra: Filters = {}) => {
    event?.preventDefault();
    const changes: Filters = {};
    for (const key of TYPED) changes[key] = typed[key]?.trim() || undefined;
    update({ ...changes, ...extra });
  };
  const statuses = tab === "triggers" ? TRIGGER_STATUSES : MESSAGE_STATUSES;
  const select = (key: FilterKey, label: string, options: readonly string[], all: string, labels: Record<string, string> = {}) => (
    <SelectFilter
      label={label}
      value={filters[key]}
      options={options}
      all={all}
      labels={labels}
      onChange={(value) => apply(undefined, { [key]: value })}
    />
  );

  return (
    <form className="filters activity-filters" aria-label="Filters" onSubmit={apply}>
      {tab !== "charts"
        ? TEXT_FIELDS.map(({ key, label, placeholder }) => (
            <Field label={label} key={key}>
              <Input
                type="search"
                value={typed[key] ?? ""}
                placeholder={placeholder}
                onChange={(e) => setTyped({ ...typed, [key]: e.target.value })}
                onBlur={() => apply()}
              />
            </Field>
          ))
        : null}
      {tab === "messages" ? select("channel", "Channel", CHANNELS, "All channels", STEP_TYPE_LABEL) : null}
      {tab === "messages" ? (
        <Field label="Provider">
          <Input
            type="search"
            value={typed.provider ?? ""}
            placeholder="Any provider (id)"
            onChange={(e) => setTyped({ ...typed, provider: e.target.value })}
            onBlur={() => apply()}
          />
        </Field>
      ) : null}
      {tab === "messages" || tab === "charts" ? (
        <Field label="Tenant">
          <Input
            type="search"
            value={typed.tenant ?? ""}
            placeholder="Any tenant (id)"
            onChange={(e) => setTyped({ ...typed, tenant: e.target.value })}
            onBlur={() => apply()}
          />
        </Field>
      ) : null}
      {tab !== "charts" ? select("status", "Status", statuses, "All statuses") : null}
      {select("range", "Time", Object.keys(RANGES), tab === "charts" ? "Last 24 hours" : "Any time", RANGE_LABELS)}
      {tab !== "charts" ? <Button type="submit">Apply</Button> : null}
    </form>
  );
}
