import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { useSession } from "../../session/session";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { inAppSettingsQuery } from "../environments/queries";
import { subscriberQuery } from "../subscribers/queries";
import { subscriberPath } from "../subscribers/search";
import { InboxPreview } from "./InboxPreview";
import "./inbox.css";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";

/** Only here: opening an Inbox marks its notifications seen, which a real user's Inbox should not owe to a look from the team. */
const PREVIEW_ENVIRONMENT = "development";

/** The Inbox a subscriber sees in the team's app, for a subscriber chosen here (development only). */
export function InboxPage() {
  const api = useApi();
  const { environment, who, setEnvironment } = useSession();
  const [params, setParams] = useSearchParams();
  const chosen = params.get("subscriber")?.trim() ?? "";
  const tenant = params.get("tenant")?.trim() ?? "";
  const [typed, setTyped] = useState(chosen);
  const [typedTenant, setTypedTenant] = useState(tenant);
  const [open, setOpen] = useState(true);
  const inDevelopment = environment === PREVIEW_ENVIRONMENT;
  const settings = useQuery({ ...inAppSettingsQuery(api, environment), enabled: inDevelopment });
  const subscriber = useQuery({
    ...subscriberQuery(api, chosen),
    enabled: inDevelopment && chosen !== "",
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const next: Record<string, string> = {};
    if (typed.trim()) next.subscriber = typed.trim();
    if (typed.trim() && typedTenant.trim()) next.tenant = typedTenant.trim();
    setParams(next, { replace: true });
  }

  if (!inDevelopment) {
    const reachable = who?.environments.some((e) => e.slug === PREVIEW_ENVIRONMENT);
    return (
      <>
        <PageHeader title="Inbox" />
        <div className="empty" data-testid="inbox-development-only">
          <p>
            The Inbox preview runs in the <code>{PREVIEW_ENVIRONMENT}</code> environment only: opening an Inbox marks its notifications
            seen, and a look from the team should not change what a real user sees.
          </p>
          {reachable ? (
            <Button type="button" variant="primary" onClick={() => setEnvironment(PREVIEW_ENVIRONMENT)}>
              Switch to {PREVIEW_ENVIRONMENT}
            </Button>
          ) : null}
        </div>
      </>
    );
  }

  return (
    <>
      <PageHeader title="Inbox" />
      <p className="muted">
        Novu's <code>&lt;Inbox/&gt;</code> (<code>@novu/react</code>), pointed at this Clarion with the props from{" "}
        <Link to={`/environments/${encodeURIComponent(environment)}`}>the environment page</Link>: what a subscriber sees in your app. New
        notifications appear as they are stored.
      </p>
      <form className="inline-form card" onSubmit={submit} aria-label="Choose a subscriber">
        <div className="field">
          <label htmlFor="inbox-subscriber">Subscriber id</label>
          <Input id="inbox-subscriber" value={typed} placeholder="user-42" onChange={(e) => setTyped(e.target.value)} spellCheck={false} />
        </div>
        <div className="field">
          <label htmlFor="inbox-tenant">Tenant (optional)</label>
          <Input
            id="inbox-tenant"
            value={typedTenant}
            placeholder="acme"
            onChange={(e) => setTypedTenant(e.target.value)}
            spellCheck={false}
          />
        </div>
        <Button type="submit" variant="primary" disabled={!typed.trim()}>
          Open Inbox
        </Button>
        <label>
          <Checkbox checked={open} onChange={(e) => setOpen(e.target.checked)} /> Keep the list open
        </label>
      </form>
      {settings.error ? <ProblemView error={settings.error} /> : null}
      {subscriber.error ? <ProblemView error={subscriber.error} /> : null}
      {chosen === "" ? <p className="muted">Choose a subscriber to see their Inbox.</p> : null}
      {chosen && (settings.isPending || subscriber.isPending) ? <Loading what="the Inbox" /> : null}
      {settings.data && subscriber.data ? (
        <>
          <p className="small">
            The Inbox of <Link to={subscriberPath(chosen)}>{chosen}</Link>
            {tenant ? (
              <>
                {" "}
                in tenant <code>{tenant}</code> (<code>context: {`{ tenant: "${tenant}" }`}</code>): only that tenant's notifications
              </>
            ) : (
              <>: notifications of triggers without a tenant or context</>
            )}
          </p>
          <InboxPreview settings={settings.data} subscriberId={chosen} tenant={tenant} open={open} />
        </>
      ) : null}
    </>
  );
}
