import { useMutation, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { useState } from "react";
import { ApiError } from "../../api/problem";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { rotateSecretMutation, secretQuery } from "./queries";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** The signing secret: hidden until asked for, and rotated with an overlap during which both sign. */
export function SecretCard({ id }: { id: string }) {
  const api = useApi();
  const [shown, setShown] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [overlapHours, setOverlapHours] = useState("24");
  const secret = useQuery({ ...secretQuery(api, id), enabled: shown });
  const rotate = useMutation(
    andThen(rotateSecretMutation(api, id), () => {
      setShown(true);
      setRotating(false);
    }),
  );
  const overlapError = rotate.error instanceof ApiError ? rotate.error.fieldError("overlapHours") : undefined;
  const data = shown ? secret.data : undefined;

  return (
    <Card aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p className="muted small">
        Verify each delivery's <code>webhook-signature</code> with it (the <code>standardwebhooks</code> package does). Keep it on your
        server.
      </p>
      {data ? (
        <>
          <code className="secret" data-testid="endpoint-secret">
            {data.secret}
          </code>
          {data.previousSecret ? (
            <p className="small" data-testid="previous-secret">
              The previous secret <code>{data.previousSecret}</code> signs too until{" "}
              {data.previousSecretExpiresAt ? new Date(data.previousSecretExpiresAt).toLocaleString() : "—"}: every delivery carries both
              signatures.
            </p>
          ) : null}
        </>
      ) : null}
      {secret.error ? <ProblemView error={secret.error} /> : null}
      <div className="row-actions">
        <Button type="button" onClick={() => setShown(!shown)} disabled={shown && secret.isFetching}>
          {shown ? "Hide secret" : "Reveal secret"}
        </Button>
        <Button type="button" onClick={() => setRotating(true)}>
          Rotate secret
        </Button>
      </div>
      <ConfirmDialog
        open={rotating}
        title="Rotate the signing secret?"
        confirm="Rotate secret"
        busy={rotate.isPending}
        onConfirm={() => rotate.mutate(Number(overlapHours))}
        onCancel={() => setRotating(false)}
      >
        <p>A new secret signs from now on. During the overlap the old one signs too, so your receiver can switch without losing events.</p>
        <Field label="Overlap (hours)" error={overlapError} hint="0 stops the old secret at once; at most 168.">
          <Input type="number" min={0} max={168} value={overlapHours} onChange={(e) => setOverlapHours(e.target.value)} />
        </Field>
        {rotate.error && !overlapError ? <ProblemView error={rotate.error} /> : null}
      </ConfirmDialog>
    </Card>
  );
}
