import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { DataList, fixedList } from "../../ui/DataList";
import { ProblemView } from "../../ui/ProblemView";
import { CheckResult } from "./CheckResult";
import { failoverOrder, movedPriorities } from "./order";
import {
  CHANNELS,
  type Channel,
  checkIntegration,
  type Integration,
  type IntegrationCheck,
  type IntegrationUpdate,
  integrationsQuery,
  movePrioritiesMutation,
  updateIntegrationMutation,
} from "./queries";
import "./integrations.css";
import { Button } from "../../ui/Button";
import { Checkbox } from "../../ui/Input";
import { Badge } from "../../ui/Badge";

/** The environment's providers per channel, in the order delivery tries them, with the switches that change it. */
export function IntegrationsPage() {
  const api = useApi();
  const list = useQuery(integrationsQuery(api));
  const [checks, setChecks] = useState<Record<string, IntegrationCheck>>({});
  const update = useMutation(updateIntegrationMutation(api));
  // One PUT per integration whose priority changes, in turn: the list shows the new order once all are saved.
  const move = useMutation(movePrioritiesMutation(api));
  const check = useMutation({
    mutationFn: (id: string) => checkIntegration(api, id),
    onSuccess: (result, id) => setChecks((all) => ({ ...all, [id]: result })),
  });
  const busy = update.isPending || move.isPending;
  // A tenant's integrations have their own order, ahead of these for its messages: they are on the tenant's page.
  const all = (list.data ?? []).filter((i) => i.tenantId === null);

  return (
    <>
      <PageHeader title="Integrations">
        <Button asChild variant="primary">
          <Link to="/integrations/new">New integration</Link>
        </Button>
      </PageHeader>
      <p className="muted">
        Each channel sends through its primary integration first, then fails over down the list. Inactive ones are skipped. A tenant's own
        integrations (its sending domain) go before these for its messages: they are on the tenant's page, under{" "}
        <Link to="/tenants">Tenants</Link>.
      </p>
      {list.error ? <ProblemView error={list.error} /> : null}
      {update.error ? <ProblemView error={update.error} /> : null}
      {move.error ? <ProblemView error={move.error} /> : null}
      {check.error ? <ProblemView error={check.error} /> : null}
      {list.isPending ? (
        <Loading what="integrations" />
      ) : list.error ? null : (
        CHANNELS.map((channel) => {
          const ordered = failoverOrder(all.filter((i) => i.channel === channel));
          const rest = ordered.filter((i) => !i.primary);
          return (
            <section key={channel} className="channel" aria-labelledby={`channel-${channel}`}>
              <div className="channel-header">
                <h2 id={`channel-${channel}`}>{channelName(channel)}</h2>
                <Link to={`/integrations/new?channel=${channel}`} className="small">
                  Add {channelName(channel)} integration
                </Link>
              </div>
              <DataList
                list={fixedList(ordered)}
                what="integrations"
                empty={`No ${channelName(channel)} integration yet.`}
                compact
                columns={["Order", "Integration", "Active", "Primary", "Check"]}
                row={(integration) => {
                  const at = rest.indexOf(integration);
                  return (
                    <IntegrationRow
                      key={integration.id}
                      integration={integration}
                      position={ordered.indexOf(integration) + 1}
                      canMoveUp={at > 0}
                      canMoveDown={at >= 0 && at < rest.length - 1}
                      busy={busy}
                      onMove={(by) => move.mutate(movedPriorities(ordered, integration.id, by))}
                      onUpdate={(body) => update.mutate({ id: integration.id, body })}
                      checking={check.isPending && check.variables === integration.id}
                      onCheck={() => check.mutate(integration.id)}
                      result={checks[integration.id]}
                    />
                  );
                }}
              />
            </section>
          );
        })
      )}
    </>
  );
}

const channelName = (channel: Channel) => (channel === "sms" ? "SMS" : channel.charAt(0).toUpperCase() + channel.slice(1));

function IntegrationRow({
  integration,
  position,
  canMoveUp,
  canMoveDown,
  busy,
  onMove,
  onUpdate,
  checking,
  onCheck,
  result,
}: {
  integration: Integration;
  position: number;
  canMoveUp: boolean;
  canMoveDown: boolean;
  busy: boolean;
  onMove: (by: -1 | 1) => void;
  onUpdate: (body: IntegrationUpdate) => void;
  checking: boolean;
  onCheck: () => void;
  result?: IntegrationCheck;
}) {
  const { id, name, provider, active, primary } = integration;
  return (
    <tr data-integration={id} className={active ? undefined : "inactive"}>
      <td>
        <div className="order">
          <span className="position">{position}</span>
          {primary ? null : (
            <>
              <Button type="button" aria-label={`Move ${name} up`} disabled={busy || !canMoveUp} onClick={() => onMove(-1)}>
                ↑
              </Button>
              <Button type="button" aria-label={`Move ${name} down`} disabled={busy || !canMoveDown} onClick={() => onMove(1)}>
                ↓
              </Button>
            </>
          )}
        </div>
      </td>
      <td>
        <Link to={`/integrations/${id}`}>{name}</Link>
        <div className="muted small">
          {provider}
          {integration.baseUrl ? ` → ${integration.baseUrl}` : ""}
        </div>
      </td>
      <td>
        <label className="switch">
          <Checkbox
            role="switch"
            aria-checked={active}
            aria-label={`${name} active`}
            checked={active}
            disabled={busy}
            onChange={(e) => onUpdate({ active: e.target.checked })}
          />
          <span>{active ? "On" : "Off"}</span>
        </label>
      </td>
      <td>
        {primary ? (
          <Badge tone="info">primary</Badge>
        ) : (
          <Button type="button" disabled={busy} onClick={() => onUpdate({ primary: true })} aria-label={`Make ${name} primary`}>
            Make primary
          </Button>
        )}
      </td>
      <td className="check-cell">
        <Button type="button" disabled={checking} onClick={onCheck} aria-label={`Check ${name}`}>
          {checking ? "Checking…" : "Check"}
        </Button>
        {result ? <CheckResult result={result} /> : null}
      </td>
    </tr>
  );
}
