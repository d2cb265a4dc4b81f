import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useApi } from "../../api/context";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { tenantPickQuery } from "../tenants/queries";
import { PreferencesCard } from "./PreferencesCard";
import { tenantPreferencesQuery } from "./queries";

/**
 * The subscriber's preferences inside one tenant, chosen by id: for that tenant's messages they
 * beat the subscriber's own, and the tenant's defaults come after both.
 */
export function TenantPreferencesCard({ subscriberId }: { subscriberId: string }) {
  const api = useApi();
  const [typed, setTyped] = useState("");
  const [tenant, setTenant] = useState("");
  const listId = useId();
  const choices = useQuery(tenantPickQuery(api, typed.trim()));
  const preferences = useQuery({ ...tenantPreferencesQuery(api, subscriberId, tenant), enabled: tenant !== "" });
  const show = (event: FormEvent) => {
    event.preventDefault();
    setTenant(typed.trim());
  };
  return (
    <Card aria-labelledby="tenant-preferences-title">
      <h2 id="tenant-preferences-title">Preferences in a tenant</h2>
      <p className="muted small">
        For a tenant's messages, the subscriber's choices inside that tenant come first, then their own, then the tenant's defaults.
      </p>
      <form className="inline-form" onSubmit={show} aria-label="Choose a tenant">
        <Field label="Tenant">
          <Input list={listId} value={typed} spellCheck={false} placeholder="acme" onChange={(e) => setTyped(e.target.value)} />
        </Field>
        <datalist id={listId}>
          {choices.data?.data.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name ?? ""}
            </option>
          ))}
        </datalist>
        <Button type="submit" disabled={!typed.trim()}>
          Show
        </Button>
      </form>
      {tenant && preferences.error ? <ProblemView error={preferences.error} /> : null}
      {tenant && preferences.isPending ? <Loading what="the preferences" /> : null}
      {tenant && preferences.data ? (
        <div data-testid="tenant-preferences" data-tenant={tenant}>
          <PreferencesCard key={tenant} subscriberId={subscriberId} preferences={preferences.data} tenant={tenant} />
        </div>
      ) : null}
    </Card>
  );
}
