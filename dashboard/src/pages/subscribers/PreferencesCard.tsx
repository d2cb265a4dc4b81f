import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { ProblemView } from "../../ui/ProblemView";
import { CHANNEL_LABEL, CHANNELS, type Channel, type Overrides, overridesUpdate, type Preferences } from "./preferences";
import { savePreferencesMutation } from "./queries";
import { allWorkflowsQuery } from "../workflows/queries";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Badge } from "../../ui/Badge";
import { Table } from "../../ui/Table";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";

type Flag = "" | "on" | "off";

const flagOf = (value: boolean | undefined): Flag => (value === undefined ? "" : value ? "on" : "off");
const flagValue = (flag: Flag): boolean | undefined => (flag === "" ? undefined : flag === "on");

/**
 * The subscriber's opt-outs as the API models them: a global flag per channel, per-workflow
 * flags that beat it (unset follows it), and quiet hours. Saved with one merge (`PUT`).
 */
export function PreferencesCard({
  subscriberId,
  preferences,
  tenant,
}: {
  subscriberId: string;
  preferences: Preferences;
  /** The preferences inside this tenant (no quiet hours there: those are the subscriber's own). */
  tenant?: string;
}) {
  const api = useApi();
  // Every workflow of the environment: the editor offers a row for each.
  const workflows = useQuery(allWorkflowsQuery(api));
  const [channels, setChannels] = useState(preferences.channels);
  const [overrides, setOverrides] = useState<Overrides>(preferences.workflows);
  const [quiet, setQuiet] = useState(preferences.quietHours !== null);
  const [start, setStart] = useState(preferences.quietHours?.start ?? "22:00");
  const [end, setEnd] = useState(preferences.quietHours?.end ?? "07:00");
  const save = useMutation(savePreferencesMutation(api, subscriberId, tenant));

  const byKey = new Map((workflows.data ?? []).map((w) => [w.key, w]));
  const rows = [...new Set([...byKey.keys(), ...Object.keys(overrides)])].sort();
  const workflowUpdate = overridesUpdate(preferences.workflows, overrides);
  const quietHours = quiet ? { start, end } : null;
  const changed =
    CHANNELS.some((ch) => channels[ch] !== preferences.channels[ch]) ||
    Object.keys(workflowUpdate).length > 0 ||
    (!tenant && JSON.stringify(quietHours) !== JSON.stringify(preferences.quietHours));

  function setOverride(workflow: string, channel: Channel, flag: Flag) {
    const flags = { ...overrides[workflow], [channel]: flagValue(flag) };
    if (flags[channel] === undefined) delete flags[channel];
    setOverrides({ ...overrides, [workflow]: flags });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    save.reset();
    save.mutate({ channels, workflows: workflowUpdate, ...(tenant ? {} : { quietHours }) });
  }

  const quietError = save.error instanceof ApiError ? save.error.fieldError("quietHours") : undefined;

  return (
    <Card {...(tenant ? { "aria-label": `Preferences inside ${tenant}` } : { "aria-labelledby": "preferences-title" })}>
      {tenant ? null : <h2 id="preferences-title">Preferences</h2>}
      <form onSubmit={submit}>
        <fieldset className="sub-fieldset">
          <legend>Channels</legend>
          <p className="muted small">Unticked: the subscriber opted out of that channel (critical workflows still send).</p>
          <div className="sub-checks">
            {CHANNELS.map((ch) => (
              <label key={ch} className="sub-check">
                <Checkbox checked={channels[ch]} onChange={(e) => setChannels({ ...channels, [ch]: e.target.checked })} />
                {CHANNEL_LABEL[ch]}
              </label>
            ))}
          </div>
        </fieldset>

        {tenant ? null : (
          <fieldset className="sub-fieldset">
            <legend>Quiet hours</legend>
            <label className="sub-check">
              <Checkbox checked={quiet} onChange={(e) => setQuiet(e.target.checked)} />
              Hold messages during quiet hours (in the subscriber's time zone)
            </label>
            {quiet ? (
              <div className="sub-checks">
                <Field label="From">
                  <Input
                    type="time"
                    value={start}
                    required
                    onChange={(e) => setStart(e.target.value)}
                    aria-invalid={quietError ? true : undefined}
                  />
                </Field>
                <Field label="To">
                  <Input
                    type="time"
                    value={end}
                    required
                    onChange={(e) => setEnd(e.target.value)}
                    aria-invalid={quietError ? true : undefined}
                  />
                </Field>
              </div>
            ) : null}
            {quietError ? (
              <span className="field-error" role="alert">
                {quietError}
              </span>
            ) : null}
          </fieldset>
        )}

        <fieldset className="sub-fieldset">
          <legend>Per workflow</legend>
          <p className="muted small">"Follow" uses the channel setting above; On or Off overrides it for that workflow.</p>
          {workflows.error ? <ProblemView error={workflows.error} /> : null}
          {rows.length === 0 ? (
            <p className="muted">{workflows.isPending ? "Loading workflows…" : "No workflows yet."}</p>
          ) : (
            <Table className="sub-preferences">
              <thead>
                <tr>
                  <th>Workflow</th>
                  {CHANNELS.map((ch) => (
                    <th key={ch}>{CHANNEL_LABEL[ch]}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((key) => {
                  const wf = byKey.get(key);
                  // Only the channels the workflow sends on (and any override already stored, so it can be taken off).
                  const used = new Set<string>(wf?.steps.map((step) => step.type) ?? []);
                  const offered = (ch: Channel) => used.has(ch) || overrides[key]?.[ch] !== undefined;
                  return (
                    <tr key={key} data-workflow={key}>
                      <td>
                        <code>{key}</code>
                        {wf && wf.name !== key ? <div className="muted small">{wf.name}</div> : null}
                        {wf?.critical ? <Badge tone="warn">critical</Badge> : null}
                        {workflows.data && !wf ? <Badge>deleted</Badge> : null}
                      </td>
                      {CHANNELS.map((ch) => (
                        <td key={ch}>
                          {offered(ch) ? (
                            <Select
                              aria-label={`${key} ${ch}`}
                              value={flagOf(overrides[key]?.[ch])}
                              onChange={(e) => setOverride(key, ch, e.target.value as Flag)}
                            >
                              <option value="">Follow</option>
                              <option value="on">On</option>
                              <option value="off">Off</option>
                            </Select>
                          ) : (
                            <span className="muted" title={`${wf?.name ?? key} sends no ${CHANNEL_LABEL[ch]}`}>
                              —
                            </span>
                          )}
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </Table>
          )}
        </fieldset>

        {save.error && !quietError ? <ProblemView error={save.error} /> : null}
        <div className="sub-actions">
          <Button type="submit" variant="primary" disabled={!changed || save.isPending}>
            {save.isPending ? "Saving…" : "Save preferences"}
          </Button>
          {save.isSuccess && !changed ? (
            <span className="muted" role="status">
              Saved.
            </span>
          ) : null}
        </div>
      </form>
    </Card>
  );
}
