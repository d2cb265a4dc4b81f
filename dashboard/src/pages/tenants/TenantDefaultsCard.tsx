import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../../api/context";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { Select } from "../../ui/Select";
import { Table } from "../../ui/Table";
import { CHANNEL_LABEL, CHANNELS, type Channel } from "../subscribers/preferences";
import { allWorkflowsQuery } from "../workflows/queries";
import { type Tenant, type TenantPreferences, updateTenantMutation } from "./queries";

type Flag = "" | "on" | "off";
type Flags = Partial<Record<Channel, boolean>>;
type WorkflowDefaults = NonNullable<TenantPreferences["workflows"]>;

const flagOf = (value: boolean | undefined): Flag => (value === undefined ? "" : value ? "on" : "off");
const flagValue = (flag: Flag): boolean | undefined => (flag === "" ? undefined : flag === "on");

function withFlag<T extends Record<string, boolean | undefined>>(flags: T, key: string, flag: Flag): T {
  const next: Record<string, boolean | undefined> = { ...flags, [key]: flagValue(flag) };
  if (next[key] === undefined) delete next[key];
  return next as T;
}

/** The defaults as the API stores them: what is unset is left out, and nothing at all is null. */
function preferencesOf(channels: Flags, workflows: WorkflowDefaults): TenantPreferences | null {
  const kept = Object.fromEntries(
    Object.entries(workflows).filter(([, w]) => w.enabled !== undefined || Object.keys(w.channels ?? {}).length > 0),
  );
  const out: TenantPreferences = {
    ...(Object.keys(channels).length ? { channels } : {}),
    ...(Object.keys(kept).length ? { workflows: kept } : {}),
  };
  return Object.keys(out).length ? out : null;
}

function FlagSelect({
  label,
  value,
  onChange,
  ...rest
}: {
  label?: string;
  value: boolean | undefined;
  onChange: (flag: Flag) => void;
  id?: string;
}) {
  return (
    <Select {...rest} aria-label={label} value={flagOf(value)} onChange={(e) => onChange(e.target.value as Flag)}>
      <option value="">Default</option>
      <option value="on">On</option>
      <option value="off">Off</option>
    </Select>
  );
}

/**
 * The tenant's default preferences, per channel and per workflow: they apply to its subscribers'
 * messages unless a subscriber chose otherwise; critical workflows ignore them.
 */
export function TenantDefaultsCard({ tenant }: { tenant: Tenant }) {
  const api = useApi();
  const workflows = useQuery(allWorkflowsQuery(api));
  const [channels, setChannels] = useState<Flags>(tenant.preferences.channels ?? {});
  const [perWorkflow, setPerWorkflow] = useState<WorkflowDefaults>(tenant.preferences.workflows ?? {});
  const save = useMutation(updateTenantMutation(api, tenant.id));
  const byKey = new Map((workflows.data ?? []).map((w) => [w.key, w]));
  const rows = [...new Set([...byKey.keys(), ...Object.keys(perWorkflow)])].sort();
  const setWorkflow = (key: string, change: (w: WorkflowDefaults[string]) => WorkflowDefaults[string]) =>
    setPerWorkflow({ ...perWorkflow, [key]: change(perWorkflow[key] ?? {}) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ preferences: preferencesOf(channels, perWorkflow) });
  };

  return (
    <Card as="form" onSubmit={submit} aria-labelledby="tenant-defaults-title">
      <h2 id="tenant-defaults-title">Default preferences</h2>
      <p className="muted small">
        Its subscribers get these unless they chose otherwise (inside this tenant or for themselves). Default: the workflow's own.
      </p>
      <div className="tenant-actions">
        {CHANNELS.map((ch) => (
          <Field key={ch} label={CHANNEL_LABEL[ch]}>
            <FlagSelect value={channels[ch]} onChange={(flag) => setChannels(withFlag(channels, ch, flag))} />
          </Field>
        ))}
      </div>
      {workflows.error ? <ProblemView error={workflows.error} /> : null}
      {rows.length ? (
        <Table className="sub-preferences">
          <thead>
            <tr>
              <th>Workflow</th>
              <th>Enabled</th>
              {CHANNELS.map((ch) => (
                <th key={ch}>{CHANNEL_LABEL[ch]}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((key) => {
              const wf = byKey.get(key);
              const defaults = perWorkflow[key] ?? {};
              return (
                <tr key={key} data-workflow={key}>
                  <td>
                    <code>{key}</code> {wf?.critical ? <Badge tone="warn">critical</Badge> : null}
                  </td>
                  <td>
                    <FlagSelect
                      label={`${key} enabled`}
                      value={defaults.enabled}
                      onChange={(flag) => setWorkflow(key, (w) => ({ ...w, enabled: flagValue(flag) }))}
                    />
                  </td>
                  {CHANNELS.map((ch) => (
                    <td key={ch}>
                      <FlagSelect
                        label={`${key} ${ch}`}
                        value={defaults.channels?.[ch]}
                        onChange={(flag) => setWorkflow(key, (w) => ({ ...w, channels: withFlag(w.channels ?? {}, ch, flag) }))}
                      />
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </Table>
      ) : (
        <p className="muted">{workflows.isPending ? "Loading workflows…" : "No workflows yet."}</p>
      )}
      {save.error ? <ProblemView error={save.error} /> : null}
      <div className="tenant-actions">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save defaults"}
        </Button>
        {save.isSuccess ? (
          <span className="muted small" role="status">
            Saved.
          </span>
        ) : null}
      </div>
    </Card>
  );
}
