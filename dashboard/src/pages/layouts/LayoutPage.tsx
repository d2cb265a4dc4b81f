import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useParams } from "react-router";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { Checkbox } from "../../ui/Input";
import { Textarea } from "../../ui/Textarea";
import { ContentForm, ContentPage } from "../content-versions/ContentEditor";
import { LayoutPreview } from "./LayoutPreview";
import { STARTER_HTML } from "./preview";
import { deleteLayoutMutation, type Layout, layoutQuery, saveLayoutMutation } from "./queries";
import "./layouts.css";

/** /layouts/new creates one; /layouts/:key edits it beside its live preview, with its versions below. */
export function LayoutPage() {
  const { key } = useParams();
  const api = useApi();
  const layout = useQuery({ ...layoutQuery(api, key ?? ""), enabled: key !== undefined });
  return (
    <ContentPage
      kind="layouts"
      noun="layout"
      contentKey={key}
      query={layout}
      form={(item, reload) => <LayoutForm key={item?.version ?? "new"} layout={item} onReload={reload} />}
    />
  );
}

function LayoutForm({ layout, onReload }: { layout?: Layout; onReload: () => void }) {
  const api = useApi();
  const [html, setHtml] = useState(layout?.html ?? STARTER_HTML);
  const [text, setText] = useState(layout?.text ?? "");
  const [isDefault, setIsDefault] = useState(layout?.isDefault ?? false);
  return (
    <ContentForm
      kind="layouts"
      noun="layout"
      item={layout}
      keyHint="Email steps name it; it never changes."
      keyPlaceholder="default"
      save={saveLayoutMutation(api, layout)}
      remove={deleteLayoutMutation(api)}
      toBody={(common) => ({ ...common, html, text: text.trim() ? text : null, isDefault })}
      conflictNote="Reload their version (your changes here are lost), or copy your HTML first."
      preview={<LayoutPreview html={html} text={text} />}
      onReload={onReload}
    >
      {(errorOf) => (
        <>
          <Field label="HTML" hint="Liquid, with {{ content }} once: the step's HTML goes there." error={errorOf("html")}>
            <Textarea className="code" rows={16} spellCheck={false} value={html} onChange={(e) => setHtml(e.target.value)} />
          </Field>
          <Field
            label="Plain text (optional)"
            hint="With {{ content }} once; left empty, the text part is made from the HTML."
            error={errorOf("text")}
          >
            <Textarea className="code" rows={5} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />
          </Field>
          <label className="checkbox">
            <Checkbox checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
            Default layout{" "}
            <span className="muted small">For email steps that name no layout; takes the flag from the current default.</span>
          </label>
        </>
      )}
    </ContentForm>
  );
}
