import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { deleteTenantMutation, tenantQuery } from "./queries";
import { TenantDefaultsCard } from "./TenantDefaultsCard";
import { TenantIntegrationsCard } from "./TenantIntegrationsCard";
import { TenantMessagesCard } from "./TenantMessagesCard";
import { TenantSettingsCard } from "./TenantSettingsCard";
import "./tenants.css";

/** One tenant: its name, data and brand (with a preview), its default preferences, its own integrations and its latest messages. */
export function TenantPage() {
  const id = useParams().id ?? "";
  const api = useApi();
  const navigate = useNavigate();
  const tenant = useQuery(tenantQuery(api, id));
  const [dialog, ask] = useConfirm();
  const remove = useMutation(andThen(deleteTenantMutation(api, id), () => navigate("/tenants")));
  const back = <Link to="/tenants">← Tenants</Link>;

  if (tenant.error) {
    return (
      <>
        <PageHeader title={id}>{back}</PageHeader>
        <ProblemView error={tenant.error} />
      </>
    );
  }
  if (!tenant.data) return <Loading what="the tenant" />;
  const t = tenant.data;
  return (
    <>
      <PageHeader title={t.name ?? t.id}>
        {back}
        <Button
          type="button"
          variant="danger"
          disabled={remove.isPending}
          onClick={async () => {
            const yes = await ask({
              title: `Delete ${t.id}?`,
              body: "Its settings, its integrations and its subscribers' preferences inside it go. Subscribers and messages stay (they keep its id).",
              confirm: "Delete tenant",
              danger: true,
            });
            if (yes) remove.mutate();
          }}
        >
          Delete
        </Button>
      </PageHeader>
      {dialog}
      <p className="muted">
        Tenant <code>{t.id}</code>: triggers name it with <code>tenant: "{t.id}"</code>.
      </p>
      {remove.error ? <ProblemView error={remove.error} /> : null}
      <TenantSettingsCard key={t.id} tenant={t} />
      <div className="tenant-sections">
        <TenantDefaultsCard key={t.id} tenant={t} />
        <TenantIntegrationsCard tenantId={t.id} />
        <TenantMessagesCard tenantId={t.id} />
      </div>
    </>
  );
}
