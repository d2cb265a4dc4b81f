import { useMutation, useQueries, useQuery } from "@tanstack/react-query";
import { type ChangeEvent, type FormEvent, useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { Table } from "../../ui/Table";
import { Select } from "../../ui/Select";
import { flatten, isPluralValue, PLURAL_ORDER, pluralForms, type PluralValue } from "./keys";
import { LocaleHistory } from "./LocaleHistory";
import { localeQuery, localesQuery, saveDefaultLocaleMutation, saveLocaleMutation, statusQuery, type Translation } from "./queries";
import "./translations.css";

/** Keys × locales: every cell edited in place; what a locale lacks or has outdated against the default is marked. */
export function TranslationsPage() {
  const api = useApi();
  const list = useQuery(localesQuery(api));
  const status = useQuery(statusQuery(api));
  const defaultLocale = list.data?.defaultLocale ?? "en";
  const locales = [...(list.data?.data ?? []).map((l) => l.locale)].sort((a, b) =>
    a === defaultLocale ? -1 : b === defaultLocale ? 1 : a.localeCompare(b),
  );
  const rows = useQueries({ queries: locales.map((locale) => localeQuery(api, locale)) });
  const byLocale = new Map(rows.flatMap((r) => (r.data ? [[r.data.locale, r.data] as const] : [])));
  const flat = new Map([...byLocale].map(([locale, t]) => [locale, flatten(t.keys)]));
  const keys = [...new Set([...flat.values()].flatMap((k) => Object.keys(k)))].sort();
  const marks = new Map(
    (status.data?.locales ?? []).map((s) => [s.locale, { missing: new Set(s.missing), outdated: new Set(s.outdated) }]),
  );

  return (
    <>
      <PageHeader title="Translations">
        <ImportLocale />
      </PageHeader>
      {list.data ? <DefaultLocaleForm key={defaultLocale} current={defaultLocale} locales={locales} /> : null}
      <p className="muted">
        Templates read these as <code>{'{{ "welcome.subject" | t: name: subscriber.firstName }}'}</code>. A subscriber gets their locale's
        text, else their language's, else the default locale's (<code>{defaultLocale}</code>). Cells marked <em>missing</em> fall back to
        the default text; <em>outdated</em> ones were translated before the default text last changed.
      </p>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? <Loading what="the locales" /> : null}
      {list.data && locales.length === 0 ? <p>No translations yet: import a locale's JSON file to start.</p> : null}
      {locales.length > 0 ? (
        <div className="translations-scroll">
          <Table className="translations-grid" aria-label="Translations">
            <thead>
              <tr>
                <th scope="col">Key</th>
                {locales.map((locale) => (
                  <th scope="col" key={locale}>
                    {locale} {locale === defaultLocale ? <Badge tone="info">default</Badge> : null}{" "}
                    {byLocale.get(locale) ? <ExportLocale translation={byLocale.get(locale)!} /> : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key}>
                  <th scope="row">
                    <code>{key}</code>
                  </th>
                  {locales.map((locale) => {
                    const translation = byLocale.get(locale);
                    const mark = marks.get(locale);
                    const state = mark?.missing.has(key) ? "missing" : mark?.outdated.has(key) ? "outdated" : undefined;
                    return (
                      <td key={locale} data-locale={locale} data-key={key} data-state={state}>
                        {translation ? (
                          <Cell
                            translation={translation}
                            flatKey={key}
                            value={flat.get(locale)?.[key]}
                            // A key the locale lacks takes the default's shape: plural forms if the default text has them.
                            plural={isPluralValue(flat.get(locale)?.[key] ?? flat.get(defaultLocale)?.[key])}
                            state={state}
                          />
                        ) : null}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      ) : null}
      {locales.length > 0 ? <LocaleHistory locales={locales} defaultLocale={defaultLocale} /> : null}
    </>
  );
}

/** The environment's default locale: shown in the grid, and the fallback of every other. */
function DefaultLocaleForm({ current, locales }: { current: string; locales: string[] }) {
  const api = useApi();
  const save = useMutation(saveDefaultLocaleMutation(api));
  const [choice, setChoice] = useState(current);
  const options = locales.includes(current) ? locales : [current, ...locales];
  return (
    <form
      className="inline-form"
      aria-label="Default locale"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(choice);
      }}
    >
      <Field
        label="Default locale"
        hint="What a subscriber reads when neither their locale nor its language has a text; every key a workflow uses must exist in it."
        error={save.error instanceof ApiError ? (save.error.problem.errors?.[0]?.message ?? save.error.problem.detail) : undefined}
      >
        <Select value={choice} onChange={(e) => setChoice(e.target.value)}>
          {options.map((locale) => (
            <option key={locale} value={locale}>
              {locale}
            </option>
          ))}
        </Select>
      </Field>
      <Button type="submit" disabled={choice === current || save.isPending}>
        Make default
      </Button>
      <span className="muted small" role="status">
        {save.isSuccess ? `${save.data.defaultLocale} is the default locale.` : ""}
      </span>
    </form>
  );
}

const problemText = (error: unknown) =>
  error instanceof ApiError ? (error.problem.errors?.[0]?.message ?? error.problem.detail) : String(error);

/** One text of one locale, saved on its own: the locale's keys with this one replaced. */
function Cell(props: { translation: Translation; flatKey: string; value: unknown; plural: boolean; state?: string }) {
  return props.plural ? <PluralCell {...props} /> : <TextCell {...props} />;
}

function TextCell({ translation, flatKey, value, state }: { translation: Translation; flatKey: string; value: unknown; state?: string }) {
  const api = useApi();
  const save = useMutation(saveLocaleMutation(api));
  const saved = typeof value === "string" ? value : "";
  const [text, setText] = useState(saved);
  const label = `${flatKey} in ${translation.locale}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ locale: translation.locale, keys: { ...flatten(translation.keys), [flatKey]: text } });
  };
  return (
    <form className="cell" onSubmit={submit} aria-label={label}>
      <Input aria-label={label} value={text} placeholder={state === "missing" ? "missing" : ""} onChange={(e) => setText(e.target.value)} />
      {state ? <Badge tone="warn">{state}</Badge> : null}
      {text !== saved ? (
        <Button type="submit" disabled={save.isPending || text === ""} aria-label={`Save ${label}`}>
          Save
        </Button>
      ) : null}
      {save.error ? (
        <span className="field-error" role="alert">
          {problemText(save.error)}
        </span>
      ) : null}
    </form>
  );
}

/**
 * A text with plural forms: one input per form the locale's grammar has (Intl.PluralRules, as the
 * `t` filter picks them), plus any other form already saved. Empty forms are left out; `other` is required.
 */
function PluralCell({ translation, flatKey, value, state }: { translation: Translation; flatKey: string; value: unknown; state?: string }) {
  const api = useApi();
  const save = useMutation(saveLocaleMutation(api));
  const saved: PluralValue = isPluralValue(value) ? (value as PluralValue) : {};
  const forms = pluralForms(translation.locale, saved);
  const [texts, setTexts] = useState<PluralValue>(saved);
  const label = `${flatKey} in ${translation.locale}`;
  const changed = forms.some((form) => (texts[form] ?? "") !== (saved[form] ?? ""));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = Object.fromEntries(PLURAL_ORDER.flatMap((form) => (texts[form] ? [[form, texts[form]]] : [])));
    save.mutate({ locale: translation.locale, keys: { ...flatten(translation.keys), [flatKey]: next } });
  };
  return (
    <form className="cell plural" onSubmit={submit} aria-label={label} data-plural="true">
      {forms.map((form) => (
        <label key={form} className="plural-form">
          <span className="small muted">{form}</span>
          <Input
            aria-label={`${label}, ${form}`}
            value={texts[form] ?? ""}
            placeholder={state === "missing" ? "missing" : ""}
            onChange={(e) => setTexts({ ...texts, [form]: e.target.value })}
          />
        </label>
      ))}
      {state ? <Badge tone="warn">{state}</Badge> : null}
      {changed ? (
        <Button type="submit" disabled={save.isPending || !texts.other} aria-label={`Save ${label}`}>
          Save
        </Button>
      ) : null}
      {save.error ? (
        <span className="field-error" role="alert">
          {problemText(save.error)}
        </span>
      ) : null}
    </form>
  );
}

/** Downloads the locale's nested JSON, the file `clarion translations pull` writes. */
function ExportLocale({ translation }: { translation: Translation }) {
  const href = `data:application/json;charset=utf-8,${encodeURIComponent(`${JSON.stringify(translation.keys, null, 2)}\n`)}`;
  return (
    <a className="small" href={href} download={`${translation.locale}.json`}>
      Export
    </a>
  );
}

/** Replaces (or adds) a locale from a nested JSON file, as `clarion translations push` does. */
function ImportLocale() {
  const api = useApi();
  const save = useMutation(saveLocaleMutation(api));
  const [locale, setLocale] = useState("");
  const [keys, setKeys] = useState<Record<string, unknown> | null>(null);
  const [fileError, setFileError] = useState<string>();
  async function pick(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    if (!locale) setLocale(file.name.replace(/\.json$/, ""));
    try {
      const parsed: unknown = JSON.parse(await file.text());
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("The file is not a JSON object of keys.");
      setKeys(parsed as Record<string, unknown>);
      setFileError(undefined);
    } catch (error) {
      setKeys(null);
      setFileError(error instanceof Error ? error.message : String(error));
    }
  }
  return (
    <form
      className="inline-form"
      aria-label="Import a locale"
      onSubmit={(e) => {
        e.preventDefault();
        if (keys) save.mutate({ locale, keys });
      }}
    >
      <Field label="Locale" error={save.error instanceof ApiError ? save.error.problem.detail : undefined}>
        <Input value={locale} placeholder="de-CH" onChange={(e) => setLocale(e.target.value)} required />
      </Field>
      <Field label="JSON file" error={fileError}>
        <Input type="file" accept="application/json,.json" onChange={(e) => void pick(e)} />
      </Field>
      <Button type="submit" disabled={!keys || !locale || save.isPending}>
        Import
      </Button>
      <span className="muted small" role="status">
        {save.isSuccess ? `Imported ${save.data.locale} (version ${save.data.version}).` : ""}
      </span>
    </form>
  );
}
