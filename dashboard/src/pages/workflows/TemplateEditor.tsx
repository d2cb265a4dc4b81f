import { useState } from "react";
import { Field } from "../../ui/Field";
import { JsonTemplateField } from "./JsonTemplateField";
import type { ChannelStep } from "./model";
import { useFieldError } from "./save-errors";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Textarea } from "../../ui/Textarea";
import { Badge } from "../../ui/Badge";

interface TemplateField {
  name: string;
  label: string;
  multiline?: boolean;
  required?: boolean;
  placeholder?: string;
}

/** The Liquid fields of each channel's template, in the order people fill them. */
const FIELDS: Record<ChannelStep["type"], TemplateField[]> = {
  email: [
    { name: "subject", label: "Subject", required: true, placeholder: "Order {{ payload.orderId }} has shipped" },
    { name: "html", label: "HTML body", multiline: true, placeholder: "<p>Hi {{ subscriber.firstName }}</p>" },
    { name: "text", label: "Text body", multiline: true },
    { name: "from", label: "From", placeholder: "Acme <hello@acme.dev> (the integration's when empty)" },
    { name: "replyTo", label: "Reply-To" },
  ],
  sms: [{ name: "body", label: "Message", multiline: true, required: true, placeholder: "Order {{ payload.orderId }} has shipped." }],
  push: [
    { name: "title", label: "Title", required: true },
    { name: "body", label: "Body", multiline: true, required: true },
    { name: "imageUrl", label: "Image URL" },
    { name: "sound", label: "Sound" },
    { name: "badge", label: "Badge", placeholder: "3, or {{ payload.unread }}" },
  ],
  chat: [{ name: "text", label: "Text", multiline: true, required: true }],
  in_app: [
    { name: "subject", label: "Subject", placeholder: "Order {{ payload.orderId }} has shipped" },
    { name: "body", label: "Body", multiline: true, required: true, placeholder: "Hi {{ subscriber.firstName }}, it is on its way." },
    { name: "avatar", label: "Avatar URL" },
  ],
};

/** Template fields that are JSON rather than one Liquid string: every string inside is Liquid. */
const JSON_FIELDS: Partial<Record<ChannelStep["type"], { name: string; label: string; kind: "object" | "array" }[]>> = {
  push: [{ name: "data", label: "Data", kind: "object" }],
  chat: [{ name: "blocks", label: "Blocks", kind: "array" }],
  in_app: [
    { name: "primaryAction", label: "Primary action ({ label, redirect: { url } })", kind: "object" },
    { name: "secondaryAction", label: "Secondary action", kind: "object" },
    { name: "redirect", label: "Redirect ({ url, target })", kind: "object" },
    { name: "data", label: "Data", kind: "object" },
  ],
};

type Template = Record<string, unknown>;
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/**
 * A channel step's template, with a tab per locale. A locale variant holds only what it changes:
 * an empty field there falls back to the default template's, shown as its placeholder.
 */
export function TemplateEditor({ step, path, onChange }: { step: ChannelStep; path: string; onChange: (step: ChannelStep) => void }) {
  const [tab, setTab] = useState<string | null>(null);
  const [adding, setAdding] = useState("");
  const locales = (step.locales ?? {}) as Record<string, Template>;
  const tags = Object.keys(locales);
  const current = tab !== null && tab in locales ? tab : null;
  const base = step.template as Template;

  const setLocales = (next: Record<string, Template>) =>
    onChange({ ...step, locales: Object.keys(next).length ? next : undefined } as ChannelStep);
  const setField = (name: string, required: boolean, text: string) => {
    if (current === null) {
      const template = { ...base, [name]: text };
      if (!text && !required) delete template[name];
      onChange({ ...step, template } as ChannelStep);
    } else {
      const variant = { ...locales[current], [name]: text };
      if (!text) delete variant[name];
      setLocales({ ...locales, [current]: variant });
    }
  };
  const addLocale = () => {
    const tag = adding.trim();
    if (!LOCALE.test(tag) || tag in locales) return;
    setLocales({ ...locales, [tag]: {} });
    setTab(tag);
    setAdding("");
  };
  const removeLocale = (tag: string) => {
    const { [tag]: _gone, ...rest } = locales;
    setLocales(rest);
    setTab(null);
  };

  return (
    <section className="template-editor" aria-label="Template">
      <h4>Template</h4>
      <div role="tablist" aria-label="Locale" className="locale-tabs">
        {[null, ...tags].map((tag) => (
          <LocaleTab
            key={tag ?? ""}
            tag={tag}
            errorPath={tag === null ? `${path}.template` : `${path}.locales.${tag}`}
            selected={tag === current}
            onSelect={() => setTab(tag)}
          />
        ))}
        <span className="add-locale">
          <Input
            aria-label="New locale"
            placeholder="de-CH"
            size={6}
            value={adding}
            onChange={(e) => setAdding(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                addLocale();
              }
            }}
          />
          <Button type="button" onClick={addLocale} disabled={!LOCALE.test(adding.trim()) || adding.trim() in locales}>
            + Locale
          </Button>
        </span>
      </div>
      <div role="tabpanel" data-locale={current ?? "default"}>
        {current !== null ? (
          <p className="muted small">
            For subscribers whose locale is <code>{current}</code> (or its language). Empty fields use the default template's.{" "}
            <Button type="button" variant="danger" onClick={() => removeLocale(current)}>
              Remove {current}
            </Button>
          </p>
        ) : null}
        {FIELDS[step.type].map((field) => (
          <TemplateInput
            key={`${current ?? ""}:${field.name}`}
            field={field}
            path={current === null ? `${path}.template.${field.name}` : `${path}.locales.${current}.${field.name}`}
            value={String((current === null ? base : locales[current])?.[field.name] ?? "")}
            placeholder={current === null ? field.placeholder : String(base[field.name] ?? "")}
            onChange={(text) => setField(field.name, Boolean(field.required), text)}
          />
        ))}
        {current === null
          ? (JSON_FIELDS[step.type] ?? []).map((field) => (
              <JsonTemplateField
                key={`${step.id}:${field.name}`}
                label={field.label}
                kind={field.kind}
                path={`${path}.template.${field.name}`}
                value={base[field.name]}
                onChange={(value) => {
                  const template: Template = { ...base, [field.name]: value };
                  if (value === undefined) delete template[field.name];
                  onChange({ ...step, template } as ChannelStep);
                }}
              />
            ))
          : null}
      </div>
    </section>
  );
}

/** A locale's tab; marked when the last save found an error in that variant, which may not be the tab on show. */
function LocaleTab({
  tag,
  errorPath,
  selected,
  onSelect,
}: {
  tag: string | null;
  errorPath: string;
  selected: boolean;
  onSelect: () => void;
}) {
  const error = useFieldError(errorPath);
  return (
    <Button
      type="button"
      role="tab"
      aria-selected={selected}
      className={["tab", selected ? "selected" : "", error ? "has-error" : ""].filter(Boolean).join(" ")}
      title={error}
      onClick={onSelect}
    >
      {tag ?? "Default"}
      {error ? <Badge tone="bad">error</Badge> : null}
    </Button>
  );
}

function TemplateInput({
  field,
  path,
  value,
  placeholder,
  onChange,
}: {
  field: TemplateField;
  path: string;
  value: string;
  placeholder?: string;
  onChange: (text: string) => void;
}) {
  const error = useFieldError(path);
  return (
    <Field label={field.label} error={error}>
      {field.multiline ? (
        <Textarea
          className="code"
          rows={field.name === "html" ? 8 : 4}
          spellCheck={false}
          data-template={field.name}
          value={value}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <Input data-template={field.name} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}
