import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { CredentialFields } from "./CredentialFields";
import { CredentialInputError, credentialFields, credentialsToSend, type FormValues, initialValues } from "./credential-fields";
import { type Integration, type IntegrationSave, type IntegrationUpdate, type Provider, saveIntegrationMutation } from "./queries";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";

type Settings = { timeoutMs: string; maxAttempts: string; failoverOnTimeout: boolean };

const settingsOf = (stored: Record<string, unknown> = {}): Settings => ({
  timeoutMs: typeof stored.timeoutMs === "number" ? String(stored.timeoutMs) : "",
  maxAttempts: typeof stored.maxAttempts === "number" ? String(stored.maxAttempts) : "",
  failoverOnTimeout: stored.failoverOnTimeout === true,
});

/** The settings object to send: the stored one (it may hold keys this form does not know) with the form's three fields. */
function settingsToSend(form: Settings, stored: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  const number = (key: "timeoutMs" | "maxAttempts") => {
    if (form[key].trim() === "") delete out[key];
    else out[key] = Number(form[key]);
  };
  number("timeoutMs");
  number("maxAttempts");
  if (form.failoverOnTimeout) out.failoverOnTimeout = true;
  else delete out.failoverOnTimeout;
  return out;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Creates an integration for `provider`, or changes `integration`. Credentials are never read
 * back into the inputs: a field left empty keeps what is stored.
 */
export function IntegrationForm({
  provider,
  integration,
  tenant: givenTenant,
  onSaved,
}: {
  provider: Provider;
  integration?: Integration;
  /** The tenant a new integration is for (from the tenant's page). */
  tenant?: string;
  onSaved: (saved: Integration) => void;
}) {
  const api = useApi();
  const fields = useMemo(() => credentialFields(provider.credentials), [provider]);
  const stored = integration?.credentials;
  const [name, setName] = useState(integration?.name ?? "");
  const [active, setActive] = useState(integration?.active ?? true);
  const [primary, setPrimary] = useState(integration?.primary ?? false);
  const [priority, setPriority] = useState(String(integration?.priority ?? 0));
  const [baseUrl, setBaseUrl] = useState(integration?.baseUrl ?? "");
  const [tenant, setTenant] = useState(integration?.tenantId ?? givenTenant ?? "");
  const [settings, setSettings] = useState(() => settingsOf(integration?.settings));
  const [values, setValues] = useState<FormValues>(() => initialValues(fields, stored));
  const [cleared, setCleared] = useState<ReadonlySet<string>>(new Set());

  const save = useMutation(
    andThen(
      saveIntegrationMutation(api, (): IntegrationSave => {
        const credentials = credentialsToSend(fields, values, stored, cleared);
        const settingsBody = settingsToSend(settings, integration?.settings);
        const url = baseUrl.trim() || null;
        const tenantId = tenant.trim() || null;
        if (!integration) {
          return {
            create: {
              provider: provider.id,
              name: name.trim() || undefined,
              active,
              primary,
              priority: priority.trim() === "" ? 0 : Number(priority),
              credentials: credentials ?? {},
              settings: settingsBody,
              baseUrl: url,
              ...(tenantId ? { tenantId } : {}),
            },
          };
        }
        const body: IntegrationUpdate = {};
        if (name.trim() !== integration.name) body.name = name.trim();
        if (active !== integration.active) body.active = active;
        if (primary !== integration.primary) body.primary = primary;
        if (priority.trim() !== "" && Number(priority) !== integration.priority) body.priority = Number(priority);
        if (url !== integration.baseUrl) body.baseUrl = url;
        if (tenantId !== integration.tenantId) body.tenantId = tenantId;
        if (!sameJson(settingsBody, integration.settings)) body.settings = settingsBody;
        if (credentials) body.credentials = credentials;
        return { integration, update: body };
      }),
      onSaved,
    ),
  );

  const error = save.error;
  const errorOf = (path: string) => (error instanceof ApiError ? error.fieldError(path) : undefined);
  const credentialError = (field: string) =>
    error instanceof CredentialInputError ? (error.field === field ? error.message : undefined) : errorOf(`credentials.${field}`);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <form className="integration-form" onSubmit={submit} noValidate>
      <fieldset>
        <legend>Credentials</legend>
        <CredentialFields
          fields={fields}
          values={values}
          onChange={(field, value) => setValues((all) => ({ ...all, [field]: value }))}
          stored={stored}
          cleared={cleared}
          onClear={(field, clear) =>
            setCleared((all) => {
              const next = new Set(all);
              if (clear) next.add(field);
              else next.delete(field);
              return next;
            })
          }
          errorOf={credentialError}
        />
        {/* A credential error not tied to one field, such as "send them in full". */}
        {errorOf("credentials") && !fields.some((f) => credentialError(f.name)) ? (
          <p className="field-error" role="alert">
            {errorOf("credentials")}
          </p>
        ) : null}
      </fieldset>
      <fieldset>
        <legend>Integration</legend>
        <Field label="Name" hint={integration ? undefined : `Defaults to ${provider.id}.`} error={errorOf("name")}>
          <Input value={name} onChange={(e) => setName(e.target.value)} placeholder={provider.id} />
        </Field>
        <label className="checkbox">
          <Checkbox checked={active} onChange={(e) => setActive(e.target.checked)} />
          Active <span className="muted small">Inactive integrations are skipped.</span>
        </label>
        <label className="checkbox">
          <Checkbox checked={primary} onChange={(e) => setPrimary(e.target.checked)} />
          Primary <span className="muted small">Tried first for {provider.channel}; the channel's other primary loses it.</span>
        </label>
        <Field label="Priority" hint="Failover order after the primary: lower goes first." error={errorOf("priority")}>
          <Input type="number" inputMode="numeric" step={1} value={priority} onChange={(e) => setPriority(e.target.value)} />
        </Field>
        <Field
          label="Tenant (optional)"
          hint="A tenant id: its messages go through this integration first (its own sending domain), then the environment's. Empty: the environment's."
          error={errorOf("tenantId")}
        >
          <Input value={tenant} spellCheck={false} autoComplete="off" onChange={(e) => setTenant(e.target.value)} placeholder="None" />
        </Field>
      </fieldset>
      <details open={Boolean(baseUrl) || Boolean(errorOf("baseUrl") ?? errorOf("settings"))}>
        <summary>Advanced</summary>
        <Field
          label="Base URL (optional)"
          hint="Send here instead of the provider's API: an EU region, a proxy, a test server. Changing it needs the secrets typed again."
          error={errorOf("baseUrl")}
        >
          <Input type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://" />
        </Field>
        <Field label="Timeout (ms, optional)" hint="How long one send may take; 10000 unless set." error={errorOf("settings.timeoutMs")}>
          <Input
            type="number"
            inputMode="numeric"
            min={100}
            max={60000}
            value={settings.timeoutMs}
            onChange={(e) => setSettings({ ...settings, timeoutMs: e.target.value })}
          />
        </Field>
        <Field
          label="Attempts (optional)"
          hint="Before failing over to the next integration; 3 unless set."
          error={errorOf("settings.maxAttempts")}
        >
          <Input
            type="number"
            inputMode="numeric"
            min={1}
            max={10}
            value={settings.maxAttempts}
            onChange={(e) => setSettings({ ...settings, maxAttempts: e.target.value })}
          />
        </Field>
        <label className="checkbox">
          <Checkbox
            checked={settings.failoverOnTimeout}
            onChange={(e) => setSettings({ ...settings, failoverOnTimeout: e.target.checked })}
          />
          Fail over after a timeout <span className="muted small">The message may then be sent twice.</span>
        </label>
      </details>
      {error ? <ProblemView error={error} /> : null}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : integration ? "Save" : "Create integration"}
        </Button>
      </div>
    </form>
  );
}
