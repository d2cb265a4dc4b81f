import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { topicPickQuery } from "../topics/queries";
import { parseObject } from "../workflows/model";
import { workflowPickQuery } from "../workflows/queries";
import { broadcast, trigger } from "./queries";
import "./activity.css";
import { Button } from "../../ui/Button";
import { Input, Radio } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Textarea } from "../../ui/Textarea";
import { Card } from "../../ui/Card";

type Audience = "subscribers" | "topic" | "everyone";
const AUDIENCES: { value: Audience; label: string }[] = [
  { value: "subscribers", label: "Subscribers" },
  { value: "topic", label: "A topic" },
  { value: "everyone", label: "Everyone (broadcast)" },
];

const ids = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter(Boolean);

/** Triggers a workflow from the dashboard: for subscribers by id, a topic's members, or every subscriber (a broadcast). */
export function NewTriggerPage() {
  const api = useApi();
  const navigate = useNavigate();
  const [workflow, setWorkflow] = useState("");
  const [audience, setAudience] = useState<Audience>("subscribers");
  const [subscriberIds, setSubscriberIds] = useState("");
  const [topic, setTopic] = useState("");
  const [payloadText, setPayloadText] = useState("{}");
  const workflows = useQuery(workflowPickQuery(api));
  const topics = useQuery({ ...topicPickQuery(api), enabled: audience === "topic" });
  const payload = parseObject(payloadText, "payload");
  const send = useMutation({
    mutationFn: () => {
      const common = { workflow, payload: payload.ok ? (payload.value ?? {}) : {} };
      if (audience === "everyone") return broadcast(api, common);
      const to = audience === "topic" ? { topic } : ids(subscriberIds);
      return trigger(api, { ...common, to });
    },
    onSuccess: (accepted) => navigate(`/activity/triggers/${encodeURIComponent(accepted.transactionId)}`),
  });
  const ready = workflow && payload.ok && (audience === "everyone" || (audience === "topic" ? topic : ids(subscriberIds).length > 0));

  function submit(event: FormEvent) {
    event.preventDefault();
    send.mutate();
  }

  return (
    <>
      <PageHeader title="New trigger">
        <Link to="/activity?tab=triggers">← Triggers</Link>
      </PageHeader>
      <Card as="form" className="new-trigger" onSubmit={submit} aria-label="New trigger">
        <Field label="Workflow">
          <Select value={workflow} onChange={(e) => setWorkflow(e.target.value)} required>
            <option value="">Choose a workflow</option>
            {workflows.data?.data.map((w) => (
              <option key={w.key} value={w.key} disabled={!w.active}>
                {w.name} ({w.key}){w.active ? "" : " — inactive"}
              </option>
            ))}
          </Select>
        </Field>
        <fieldset className="segmented">
          <legend>To</legend>
          {AUDIENCES.map((a) => (
            <label key={a.value}>
              <Radio name="audience" value={a.value} checked={audience === a.value} onChange={() => setAudience(a.value)} /> {a.label}
            </label>
          ))}
        </fieldset>
        {audience === "subscribers" ? (
          <Field label="Subscriber ids" hint="Separated by commas or spaces; up to 100.">
            <Input value={subscriberIds} spellCheck={false} onChange={(e) => setSubscriberIds(e.target.value)} />
          </Field>
        ) : audience === "topic" ? (
          <Field label="Topic">
            <Select value={topic} onChange={(e) => setTopic(e.target.value)}>
              <option value="">Choose a topic</option>
              {topics.data?.data.map((t) => (
                <option key={t.key} value={t.key}>
                  {t.name} ({t.key})
                </option>
              ))}
            </Select>
          </Field>
        ) : (
          <p className="notice" data-testid="broadcast-notice">
            Every subscriber of this environment gets it, each once.
          </p>
        )}
        <Field label="Payload (JSON)" error={payload.ok ? undefined : payload.message}>
          <Textarea rows={6} spellCheck={false} value={payloadText} onChange={(e) => setPayloadText(e.target.value)} />
        </Field>
        {send.error ? <ProblemView error={send.error} /> : null}
        <Button type="submit" variant="primary" disabled={!ready || send.isPending}>
          {audience === "everyone" ? "Broadcast" : "Trigger"}
        </Button>
      </Card>
    </>
  );
}
