import { useState } from "react";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";

/** A key just created or rotated: the only time its secret is shown, with a way to copy it. */
export function NewKey({ secret, onDone }: { secret: string; onDone: () => void }) {
  // Which key the outcome is about: after a rotation the new key has not been copied, whatever the old one was.
  const [outcome, setOutcome] = useState<{ secret: string; copied: boolean } | null>(null);
  const copied = outcome?.secret === secret ? (outcome.copied ? "yes" : "failed") : null;
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setOutcome({ secret, copied: true });
    } catch {
      setOutcome({ secret, copied: false });
    }
  }
  return (
    <Card className="new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Your new API key</h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Clarion keeps only its SHA-256.
      </p>
      <div className="new-key-value">
        <code data-testid="new-key">{secret}</code>
        <Button type="button" variant="primary" onClick={() => void copy()}>
          Copy
        </Button>
      </div>
      <p className="muted small" role="status">
        {copied === "yes"
          ? "Copied to the clipboard."
          : copied === "failed"
            ? "The browser refused the clipboard: select the key and copy it."
            : ""}
      </p>
      <Button type="button" onClick={onDone}>
        I have stored it
      </Button>
    </Card>
  );
}
