import { type FormEvent, useState } from "react";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { SelectFilter } from "../../ui/SelectFilter";
import { STEP_TYPE_LABEL } from "../../ui/labels";
import { CHANNELS, type Filters, granularityOf, RANGE_LABELS, RANGES, rangeOf } from "./filters";

const TYPED = ["workflow", "tenant", "from", "to"] as const;
const GRANULARITY_LABELS = { hour: "Hours", day: "Days" };

/**
 * The period and the filters. Choices apply at once; typed values on Enter, on Apply or when the
 * field is left, so the reports are not asked again at every keystroke.
 */
export function AnalyticsFilters({ filters, update }: { filters: Filters; update: (changes: Filters) => void }) {
  const [typed, setTyped] = useState<Filters>(filters);
  const range = rangeOf(filters);
  const apply = (event?: FormEvent, extra: Filters = {}) => {
    event?.preventDefault();
    const changes: Filters = {};
    for (const key of TYPED) changes[key] = typed[key]?.trim() || undefined;
    update({ ...changes, ...extra });
  };
  const typedField = (key: "workflow" | "tenant", label: string, placeholder: string) => (
    <Field label={label}>
      <Input
        type="search"
        value={typed[key] ?? ""}
        placeholder={placeholder}
        onChange={(e) => setTyped({ ...typed, [key]: e.target.value })}
        onBlur={() => apply()}
      />
    </Field>
  );
  const dateField = (key: "from" | "to", label: string) => (
    <Field label={label}>
      <Input
        type="date"
        value={typed[key] ?? ""}
        onChange={(e) => setTyped({ ...typed, [key]: e.target.value })}
        onBlur={() => apply(undefined, { range: "custom" })}
      />
    </Field>
  );
  return (
    <form
      className="filters analytics-filters"
      aria-label="Filters"
      onSubmit={(e) => apply(e, range === "custom" ? { range: "custom" } : {})}
    >
      <SelectFilter
        id="analytics-range"
        label="Period"
        value={range === "7d" ? undefined : range}
        options={[...Object.keys(RANGES).filter((r) => r !== "7d"), "custom"]}
        all={RANGE_LABELS["7d"]}
        labels={RANGE_LABELS}
        // Dates typed belong to "Custom dates" only: a preset drops them.
        onChange={(value) => apply(undefined, value === "custom" ? { range: value } : { range: value, from: undefined, to: undefined })}
      />
      {range === "custom" ? (
        <>
          {dateField("from", "From (UTC)")}
          {dateField("to", "To (UTC, inclusive)")}
        </>
      ) : null}
      {typedField("workflow", "Workflow", "Any workflow (key)")}
      <SelectFilter
        id="analytics-channel"
        label="Channel"
        value={filters.channel}
        options={CHANNELS}
        all="All channels"
        labels={STEP_TYPE_LABEL}
        onChange={(value) => apply(undefined, { channel: value })}
      />
      {typedField("tenant", "Tenant", "Any tenant (id)")}
      <SelectFilter
        id="analytics-granularity"
        label="Buckets"
        value={filters.granularity}
        options={["hour", "day"]}
        all={`Automatic (${GRANULARITY_LABELS[granularityOf({ ...filters, granularity: undefined })].toLowerCase()})`}
        labels={GRANULARITY_LABELS}
        onChange={(value) => apply(undefined, { granularity: value })}
      />
      <Button type="submit">Apply</Button>
    </form>
  );
}
