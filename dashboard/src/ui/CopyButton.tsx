import { useState } from "react";
import { Button } from "./Button";

/** Copies `text` and says whether the browser let it: "Copied", or to select it by hand. */
export function CopyButton({ text, label = "Copy", className }: { text: string; label?: string; className?: string }) {
  // Which text the outcome is about: once the text changes (a rotation), nothing is copied yet.
  const [outcome, setOutcome] = useState<{ text: string; copied: boolean } | null>(null);
  const said =
    outcome?.text === text ? (outcome.copied ? "Copied." : "The browser refused the clipboard: select the text and copy it.") : "";
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome({ text, copied: true });
    } catch {
      setOutcome({ text, copied: false });
    }
  }
  return (
    <span className="copy">
      <Button type="button" className={className} onClick={() => void copy()}>
        {label}
      </Button>{" "}
      <span className="muted small" role="status">
        {said}
      </span>
    </span>
  );
}
