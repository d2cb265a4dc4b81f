import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";
import { DataList } from "../../ui/DataList";
import { failoverOrder } from "../integrations/order";
import { tenantIntegrationsQuery } from "../integrations/queries";

/** The tenant's own integrations (its sending domain): tried first for its messages, before the environment's. */
export function TenantIntegrationsCard({ tenantId }: { tenantId: string }) {
  const api = useApi();
  const list = useQuery(tenantIntegrationsQuery(api, tenantId));
  const ordered = { data: list.data ? failoverOrder(list.data) : undefined, error: list.error, isPending: list.isPending };
  return (
    <Card aria-labelledby="tenant-integrations-title">
      <h2 id="tenant-integrations-title">Integrations</h2>
      <p className="muted small">
        This tenant's messages go through these first, per channel in failover order, then through the environment's. No other message ever
        does.{" "}
        <Link to={`/integrations/new?tenant=${encodeURIComponent(tenantId)}`} data-testid="tenant-add-integration">
          Add an integration for this tenant
        </Link>
      </p>
      <DataList
        list={ordered}
        what="integrations"
        empty="None: its messages go through the environment's integrations."
        compact
        columns={["Integration", "Channel", "Provider", "Active", "Primary"]}
        row={(i) => (
          <tr key={i.id} data-integration={i.id}>
            <td>
              <Link to={`/integrations/${encodeURIComponent(i.id)}`}>{i.name}</Link>
            </td>
            <td>{i.channel}</td>
            <td>
              <code>{i.provider}</code>
            </td>
            <td>{i.active ? <Badge tone="ok">active</Badge> : <Badge>inactive</Badge>}</td>
            <td>{i.primary ? <Badge tone="info">primary</Badge> : null}</td>
          </tr>
        )}
      />
    </Card>
  );
}
