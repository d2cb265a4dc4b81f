import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/context";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { type Channel, liftSuppressionMutation, suppressionsQuery } from "./queries";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Badge } from "../../ui/Badge";
import { Field } from "../../ui/Field";
const CHANNELS: Channel[] = ["email", "sms", "push", "chat"];

/** Addresses Clarion no longer sends to (hard bounces, complaints, unsubscribes, invalid recipients), and lifting them. */
export function SuppressionsPage() {
  const [channel, setChannel] = useState<Channel | "">("");
  const [address, setAddress] = useState("");
  const api = useApi();
  const filters = { channel: channel || undefined, address: address.trim() || undefined };
  const list = useInfiniteQuery(suppressionsQuery(api, filters));
  const [dialog, ask] = useConfirm();
  const lift = useMutation(liftSuppressionMutation(api));

  return (
    <>
      {dialog}
      <PageHeader title="Suppressions" />
      <p className="muted">
        Clarion skips these addresses (the message ends <code>suppressed</code>) until you lift them.
      </p>
      <div className="filters">
        <Field label="Channel">
          <Select value={channel} onChange={(e) => setChannel(e.target.value as Channel | "")}>
            <option value="">All</option>
            {CHANNELS.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </Select>
        </Field>
        <Field label="Address">
          <Input
            type="search"
            value={address}
            placeholder="Search an email address or phone number"
            onChange={(e) => setAddress(e.target.value)}
          />
        </Field>
      </div>
      {lift.error ? <ProblemView error={lift.error} /> : null}
      <DataList
        list={list}
        what="suppressions"
        empty="No suppressed addresses."
        columns={["Address", "Channel", "Reason", "Provider", "Since", { label: "Actions" }]}
        row={(s) => (
          <tr key={`${s.channel}:${s.address}`} data-address={s.address}>
            <td>
              <code>{s.address}</code>
            </td>
            <td>{s.channel}</td>
            <td>
              <Badge tone="bad">{s.reason.replaceAll("_", " ")}</Badge>
            </td>
            <td>{s.provider ?? "—"}</td>
            <td>{new Date(s.createdAt).toLocaleString()}</td>
            <td>
              <Button
                type="button"
                disabled={lift.isPending}
                onClick={async () => {
                  const yes = await ask({
                    title: `Send to ${s.address} again?`,
                    body: "Clarion stops skipping this address; a new bounce or complaint suppresses it again.",
                    confirm: "Lift suppression",
                  });
                  if (yes) lift.mutate(s);
                }}
              >
                Lift
              </Button>
            </td>
          </tr>
        )}
      />
    </>
  );
}
