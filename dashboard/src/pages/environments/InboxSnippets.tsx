import { useState } from "react";
import { CopyButton } from "../../ui/CopyButton";
import { hashSnippet, type InboxTarget, jsSnippet, reactSnippet } from "./inbox-snippets";
import { Button } from "../../ui/Button";

const SNIPPETS = {
  react: { label: "React", code: reactSnippet },
  js: { label: "@novu/js", code: jsSnippet },
  hash: { label: "Subscriber hash (backend)", code: hashSnippet },
} as const;
type Kind = keyof typeof SNIPPETS;

/** The code to paste, with this environment's identifier and this Clarion's addresses filled in. */
export function InboxSnippets({ target }: { target: InboxTarget }) {
  const [kind, setKind] = useState<Kind>("react");
  const code = SNIPPETS[kind].code(target);
  return (
    <div className="snippets">
      <fieldset className="snippet-tabs">
        <legend className="small muted">Snippet</legend>
        {(Object.keys(SNIPPETS) as Kind[]).map((k) => (
          <Button key={k} type="button" aria-pressed={k === kind} onClick={() => setKind(k)}>
            {SNIPPETS[k].label}
          </Button>
        ))}
      </fieldset>
      <pre className="snippet" data-testid="snippet" data-kind={kind}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label="Copy snippet" />
    </div>
  );
}
