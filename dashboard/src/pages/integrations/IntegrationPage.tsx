import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { CheckResult } from "./CheckResult";
import { IntegrationForm } from "./IntegrationForm";
import { checkIntegration, deleteIntegrationMutation, integrationQuery, providersQuery } from "./queries";
import { andThen } from "../../api/mutations";
import "./integrations.css";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Button } from "../../ui/Button";

/** One integration: its check, its form (credentials stay masked), and deleting it. */
export function IntegrationPage() {
  const { id = "" } = useParams();
  const api = useApi();
  const navigate = useNavigate();
  const integration = useQuery(integrationQuery(api, id));
  const providers = useQuery(providersQuery(api));
  const check = useMutation({ mutationFn: () => checkIntegration(api, id) });
  const [dialog, ask] = useConfirm();
  const remove = useMutation(andThen(deleteIntegrationMutation(api, id), () => navigate("/integrations")));
  const data = integration.data;
  const provider = providers.data?.data.find((p) => p.id === data?.provider);

  return (
    <>
      <PageHeader title={data ? data.name : "Integration"}>
        {data ? (
          <>
            <Button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
              {check.isPending ? "Checking…" : "Check"}
            </Button>
            <Button
              type="button"
              variant="danger"
              disabled={remove.isPending}
              onClick={async () => {
                const yes = await ask({
                  title: `Delete ${data.name}?`,
                  body: `Messages on ${data.channel} stop using it at once.`,
                  confirm: "Delete integration",
                  danger: true,
                });
                if (yes) remove.mutate();
              }}
            >
              Delete
            </Button>
          </>
        ) : null}
      </PageHeader>
      {dialog}
      <p>
        <Link to="/integrations">← Integrations</Link>
      </p>
      {integration.error ? <ProblemView error={integration.error} /> : null}
      {providers.error ? <ProblemView error={providers.error} /> : null}
      {check.error ? <ProblemView error={check.error} /> : null}
      {remove.error ? <ProblemView error={remove.error} /> : null}
      {check.data ? <CheckResult result={check.data} /> : null}
      {integration.isPending || providers.isPending ? (
        <Loading what="the integration" />
      ) : data && !provider ? (
        <p className="problem">
          The provider “{data.provider}” is no longer available in this deployment: the integration cannot be edited.
        </p>
      ) : data && provider ? (
        <>
          <p className="muted">
            {data.provider} · {data.channel} · <code>{data.id}</code>
          </p>
          {typeof provider.credentials.description === "string" ? <p className="muted">{provider.credentials.description}</p> : null}
          <IntegrationForm key={data.updatedAt} provider={provider} integration={data} onSaved={() => navigate("/integrations")} />
        </>
      ) : null}
    </>
  );
}
