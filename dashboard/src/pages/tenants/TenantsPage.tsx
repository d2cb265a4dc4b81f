import { keepPreviousData, useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { andThen } from "../../api/mutations";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { DataList } from "../../ui/DataList";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { useDebounced } from "../../ui/use-debounced";
import { createTenantMutation, tenantPath, tenantsQuery } from "./queries";
import "./tenants.css";

/** The environment's tenants (the businesses its product serves), searchable by id or name. */
export function TenantsPage() {
  // The search lives in the address (?q=), so Back from a tenant returns to the same list.
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get("q") ?? "");
  const settled = useDebounced(search, 300).trim();
  useEffect(() => {
    if (settled !== (params.get("q") ?? "")) setParams(settled ? { q: settled } : {}, { replace: true });
  }, [settled, params, setParams]);
  const api = useApi();
  const list = useInfiniteQuery({ ...tenantsQuery(api, settled), placeholderData: keepPreviousData });

  return (
    <>
      <PageHeader title="Tenants">
        <Link to="/subscribers">← Subscribers</Link>
      </PageHeader>
      <p className="muted">
        Each tenant's brand overrides the environment's for its messages and pages, its defaults apply to its subscribers, and its own
        integrations (its sending domain) go first. A trigger names the tenant with <code>tenant: "acme"</code>.
      </p>
      <CreateTenant />
      <div className="filters">
        <Field label="Search">
          <Input type="search" value={search} placeholder="Search by id or name" onChange={(e) => setSearch(e.target.value)} />
        </Field>
      </div>
      <DataList
        list={list}
        what="tenants"
        empty={settled ? "No tenant matches." : "No tenants yet."}
        moreClassName="tenant-more"
        columns={["Tenant", "Name", "Brand", "Updated"]}
        row={(t) => (
          <tr key={t.id} data-tenant={t.id}>
            <td>
              <Link to={tenantPath(t.id)}>
                <code>{t.id}</code>
              </Link>
            </td>
            <td>{t.name ?? <span className="muted">—</span>}</td>
            <td data-testid="tenant-brand">
              {t.brand.colors?.primary ? <span className="tenant-swatch" style={{ background: t.brand.colors.primary }} /> : null}
              {t.brand.name ?? (Object.keys(t.brand).length ? "overrides" : <span className="muted">environment's</span>)}
            </td>
            <td className="tenant-nowrap">{new Date(t.updatedAt).toLocaleString()}</td>
          </tr>
        )}
      />
    </>
  );
}

function CreateTenant() {
  const api = useApi();
  const navigate = useNavigate();
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const create = useMutation(andThen(createTenantMutation(api), (tenant) => navigate(tenantPath(tenant.id))));
  const apiError = create.error instanceof ApiError ? create.error : null;
  const idError = apiError?.fieldError("id") ?? (apiError?.problem.status === 409 ? apiError.problem.detail : undefined);
  const nameError = apiError?.fieldError("name");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ id: id.trim(), name: name.trim() });
  };
  return (
    <Card as="form" className="tenant-create" onSubmit={submit} noValidate aria-label="New tenant">
      <h2>New tenant</h2>
      <div className="tenant-create-fields">
        <Field label="Id" hint="Your id for the customer, as triggers name it, e.g. acme" error={idError}>
          <Input autoComplete="off" spellCheck={false} value={id} onChange={(e) => setId(e.target.value)} />
        </Field>
        <Field label="Name" error={nameError}>
          <Input autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create tenant"}
        </Button>
      </div>
      {create.error && !idError && !nameError ? <ProblemView error={create.error} /> : null}
    </Card>
  );
}
