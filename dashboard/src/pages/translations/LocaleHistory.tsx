import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { Select } from "../../ui/Select";
import { type Snapshot, SnapshotHistory } from "../content-versions/SnapshotHistory";
import { flatten } from "./keys";
import { localeDiffQuery, localeVersionsQuery, restoreLocale, TRANSLATIONS } from "./queries";

/** One locale's versions (picked here), compared key by key and restorable. */
export function LocaleHistory({ locales, defaultLocale }: { locales: string[]; defaultLocale: string }) {
  const api = useApi();
  const [picked, setPicked] = useState(defaultLocale);
  const locale = locales.includes(picked) ? picked : (locales[0] ?? defaultLocale);
  const versions = useQuery(localeVersionsQuery(api, locale));
  const snapshots: Snapshot[] = (versions.data?.data ?? []).map((v) => ({
    version: v.version,
    action: v.action,
    author: v.author,
    createdAt: v.createdAt,
    fields: v.keys ? flatten(v.keys) : null,
  }));
  const latest = snapshots[0];
  return (
    <section className="locale-history" aria-label="Translation history">
      <Field label="History of locale">
        <Select value={locale} onChange={(e) => setPicked(e.target.value)}>
          {locales.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </Select>
      </Field>
      {versions.error ? <ProblemView error={versions.error} /> : null}
      {versions.isPending ? <Loading what="the versions" /> : null}
      {latest ? (
        <SnapshotHistory
          key={locale}
          title={`Versions of ${locale}`}
          versions={snapshots}
          current={latest.version}
          historyKey={TRANSLATIONS}
          diffQuery={(from, to) => localeDiffQuery(api, locale, from, to)}
          restore={(v) => restoreLocale(api, locale, v.version, latest.version)}
          restoreNote="Triggers already accepted keep the texts they were accepted with."
        />
      ) : null}
    </section>
  );
}
