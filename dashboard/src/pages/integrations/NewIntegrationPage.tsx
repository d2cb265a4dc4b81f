import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { IntegrationForm } from "./IntegrationForm";
import { CHANNELS, type Channel, providersQuery } from "./queries";
import "./integrations.css";
import { Select } from "../../ui/Select";

const isChannel = (value: string | null): value is Channel => CHANNELS.some((c) => c === value);

/** Pick a channel and a provider, then fill in the form its credential schema asks for. The choice lives in the URL. */
export function NewIntegrationPage() {
  const api = useApi();
  const providers = useQuery(providersQuery(api));
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const requested = params.get("channel");
  const channel: Channel = isChannel(requested) ? requested : "email";
  const choices = (providers.data?.data ?? []).filter((p) => p.channel === channel);
  const provider = choices.find((p) => p.id === params.get("provider"));
  // From a tenant's page: the integration is that tenant's, and saving goes back there.
  const tenant = params.get("tenant") ?? undefined;
  const choose = (next: { channel?: Channel; provider?: string }) =>
    setParams(
      { channel: next.channel ?? channel, ...(next.provider ? { provider: next.provider } : {}), ...(tenant ? { tenant } : {}) },
      { replace: true },
    );

  return (
    <>
      <PageHeader title="New integration" />
      {providers.error ? <ProblemView error={providers.error} /> : null}
      {providers.isPending ? (
        <Loading what="providers" />
      ) : (
        <div className="integration-form">
          <div className="filters">
            <Field label="Channel">
              <Select value={channel} onChange={(e) => choose({ channel: e.target.value as Channel })}>
                {CHANNELS.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </Select>
            </Field>
            <Field label="Provider">
              <Select value={provider?.id ?? ""} onChange={(e) => choose({ provider: e.target.value })}>
                <option value="" disabled>
                  Choose…
                </option>
                {choices.map((p) => (
                  <option key={p.id}>{p.id}</option>
                ))}
              </Select>
            </Field>
          </div>
          {provider ? (
            typeof provider.credentials.description === "string" ? (
              <p className="muted">{provider.credentials.description}</p>
            ) : null
          ) : (
            <p className="muted">Choose the provider to connect; its credentials form follows.</p>
          )}
        </div>
      )}
      {provider ? (
        <IntegrationForm
          key={provider.id}
          provider={provider}
          tenant={tenant}
          onSaved={() => navigate(tenant ? `/tenants/${encodeURIComponent(tenant)}` : "/integrations")}
        />
      ) : null}
    </>
  );
}
