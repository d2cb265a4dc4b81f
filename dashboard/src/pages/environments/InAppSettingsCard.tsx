import { useMutation, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { useState } from "react";
import { CopyButton } from "../../ui/CopyButton";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { InboxSnippets } from "./InboxSnippets";
import {
  hmacRequiredMutation,
  inAppSettingsQuery,
  rotateInboxSecretMutation,
  type SessionProfileWrites,
  sessionProfileWritesMutation,
} from "./queries";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { Checkbox } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";

/** What the Novu Inbox needs to run against this environment: identifier, subscriber hashes, addresses, code. */
export function InAppSettingsCard({ slug }: { slug: string }) {
  const api = useApi();
  const settings = useQuery(inAppSettingsQuery(api, slug));
  const [shown, setShown] = useState(false);
  const [dialog, ask] = useConfirm();
  // The choice shows at once; the answer confirms it (or the error says why not, and the box goes back).
  const [wanted, setWanted] = useState<boolean | null>(null);
  const hmac = useMutation({ ...hmacRequiredMutation(api, slug), onSettled: () => setWanted(null) });
  const profileWrites = useMutation(sessionProfileWritesMutation(api, slug));
  const rotate = useMutation(andThen(rotateInboxSecretMutation(api, slug), () => setShown(true)));
  const data = settings.data;

  async function askToRotate() {
    const yes = await ask({
      title: "Rotate the Inbox HMAC secret?",
      body: (
        <p>
          Every <code>subscriberHash</code> made with the current secret is refused from now on: Inboxes in your app fail to open until your
          backend computes hashes with the new one.
        </p>
      ),
      confirm: "Rotate secret",
      danger: true,
    });
    if (yes) rotate.mutate();
  }

  return (
    <Card className="settings-card" aria-labelledby="in-app-title" data-testid="in-app-settings">
      <h2 id="in-app-title">In-app Inbox</h2>
      <p className="muted small">
        Novu's <code>&lt;Inbox/&gt;</code> (<code>@novu/react</code>) and <code>@novu/js</code> run against this environment with these
        props. The identifier is public; the HMAC secret stays on your backend.
      </p>
      {dialog}
      {settings.error ? <ProblemView error={settings.error} /> : null}
      {hmac.error ? <ProblemView error={hmac.error} /> : null}
      {rotate.error ? <ProblemView error={rotate.error} /> : null}
      {profileWrites.error ? <ProblemView error={profileWrites.error} /> : null}
      {settings.isPending ? <Loading what="the Inbox settings" /> : null}
      {data ? (
        <>
          <dl className="facts">
            <dt>Application identifier</dt>
            <dd>
              <code data-testid="application-identifier">{data.applicationIdentifier}</code>{" "}
              <CopyButton text={data.applicationIdentifier} label="Copy identifier" />
            </dd>
            <dt>API URL</dt>
            <dd>
              <code>{data.apiUrl}</code>
            </dd>
            <dt>Socket URL</dt>
            <dd>
              <code>{data.socketUrl}</code>
            </dd>
            <dt>HMAC secret</dt>
            <dd>
              {shown ? (
                <>
                  <code data-testid="hmac-secret">{data.hmacSecret}</code> <CopyButton text={data.hmacSecret} label="Copy secret" />
                </>
              ) : (
                <span className="muted">hidden</span>
              )}
              <div className="row-actions">
                <Button type="button" onClick={() => setShown(!shown)}>
                  {shown ? "Hide secret" : "Reveal secret"}
                </Button>
                <Button type="button" variant="danger" onClick={() => void askToRotate()} disabled={rotate.isPending}>
                  Rotate secret
                </Button>
              </div>
            </dd>
          </dl>
          <label className="toggle">
            <Checkbox checked={data.hmacRequired} disabled={hmac.isPending} onChange={(e) => hmac.mutate(e.target.checked)} /> Require a
            subscriber hash
          </label>
          <p className="muted small">
            {(wanted ?? data.hmacRequired)
              ? "An Inbox opens only with subscriberHash = hex HMAC-SHA256(secret, subscriberId), computed by your backend."
              : "Off: any browser can open any subscriber's Inbox by its id. For development only."}
          </p>
          <Field label="What an Inbox session may write of the profile it is sent">
            <Select
              data-testid="session-profile-writes"
              value={(profileWrites.isPending ? profileWrites.variables : undefined) ?? data.sessionProfileWrites}
              disabled={profileWrites.isPending}
              onChange={(e) => profileWrites.mutate(e.target.value as SessionProfileWrites)}
            >
              <option value="create_only">Create a missing subscriber only (recommended)</option>
              <option value="always">Also update an existing subscriber</option>
            </Select>
          </Field>
          <p className="muted small" data-testid="session-profile-writes-help">
            {((profileWrites.isPending ? profileWrites.variables : undefined) ?? data.sessionProfileWrites) === "always"
              ? "Any signed-in end user can set their own email, phone, data, locale and time zone from the browser: the hash proves only the subscriberId. Your mail and SMS then go where they say, and an Inbox opened elsewhere moves their time zone."
              : "The Inbox creates a subscriber it does not find, with the profile the page passes; an existing subscriber is never changed by it. Your backend stays the one writer of email, phone, data and time zone."}
          </p>
          <InboxSnippets target={data} />
        </>
      ) : null}
    </Card>
  );
}
