import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useParams } from "react-router";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { Select } from "../../ui/Select";
import { Textarea } from "../../ui/Textarea";
import { ContentForm, ContentPage } from "../content-versions/ContentEditor";
import { PartialPreview } from "./PartialPreview";
import { deletePartialMutation, type Partial, partialQuery, savePartialMutation } from "./queries";

/** /partials/new creates one; /partials/:key edits it beside its preview, with its versions below. */
export function PartialPage() {
  const { key } = useParams();
  const api = useApi();
  const partial = useQuery({ ...partialQuery(api, key ?? ""), enabled: key !== undefined });
  return (
    <ContentPage
      kind="partials"
      noun="partial"
      contentKey={key}
      query={partial}
      form={(item, reload) => <PartialForm key={item?.version ?? "new"} partial={item} onReload={reload} />}
    />
  );
}

function PartialForm({ partial, onReload }: { partial?: Partial; onReload: () => void }) {
  const api = useApi();
  const [content, setContent] = useState(partial?.content ?? "");
  const [type, setType] = useState<Partial["type"]>(partial?.type ?? "html");
  return (
    <ContentForm
      kind="partials"
      noun="partial"
      item={partial}
      keyHint={'Templates render it as {% render "key" %}; it never changes.'}
      keyPlaceholder="footer"
      save={savePartialMutation(api, partial)}
      remove={deletePartialMutation(api)}
      toBody={(common) => ({ ...common, content, type })}
      conflictNote="Reload their version (your changes here are lost)."
      preview={<PartialPreview content={content} type={type} />}
      onReload={onReload}
    >
      {(errorOf) => (
        <>
          <Field label="Type" hint="HTML is escaped as email HTML is; text is plain." error={errorOf("type")}>
            <Select value={type} onChange={(e) => setType(e.target.value === "text" ? "text" : "html")}>
              <option value="html">HTML</option>
              <option value="text">Text</option>
            </Select>
          </Field>
          <Field label="Content" hint="Liquid; sees only the arguments of the render that includes it." error={errorOf("content")}>
            <Textarea className="code" rows={12} spellCheck={false} value={content} onChange={(e) => setContent(e.target.value)} />
          </Field>
        </>
      )}
    </ContentForm>
  );
}
