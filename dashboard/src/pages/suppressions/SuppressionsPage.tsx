import { CURSOR_PAGES } from "../../api/cursor-pages";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { MoreButton } from "../../ui/MoreButton";
import { useConfirm } from "../../ui/ConfirmDialog";

type Suppression = components["schemas"]["Suppression"];
type Channel = Suppression["channel"];
const CHANNELS: Channel[] = ["email", "sms", "push", "chat"];

/** Addresses Clarion no longer sends to (hard bounces, complaints, unsubscribes, invalid recipients), and lifting them. */
export function SuppressionsPage() {
  const [channel, setChannel] = useState<Channel | "">("");
  const [address, setAddress] = useState("");
  const queryClient = useQueryClient();
  const filters = { channel: channel || undefined, address: address.trim() || undefined };
  const list = useInfiniteQuery({
    queryKey: ["suppressions", filters],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/suppressions", { params: { query: { ...filters, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });
  const [dialog, ask] = useConfirm();
  const lift = useMutation({
    mutationFn: (s: Suppression) => unwrap(api.DELETE("/v1/suppressions/{address}", { params: { path: { address: s.address } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["suppressions"] }),
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      {dialog}
      <PageHeader title="Suppressions" />
      <p className="muted">
        Clarion skips these addresses (the message ends <code>suppressed</code>) until you lift them.
      </p>
      <div className="filters">
        <label className="field">
          Channel
          <select value={channel} onChange={(e) => setChannel(e.target.value as Channel | "")}>
            <option value="">All</option>
            {CHANNELS.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label className="field">
          Address
          <input type="search" value={address} placeholder="ada@example.com" onChange={(e) => setAddress(e.target.value)} />
        </label>
      </div>
      {lift.error ? <ProblemView error={lift.error} /> : null}
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="suppressions" />
      ) : rows.length === 0 ? (
        <p className="empty muted">No suppressed addresses.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Address</th>
                <th>Channel</th>
                <th>Reason</th>
                <th>Provider</th>
                <th>Since</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={`${s.channel}:${s.address}`} data-address={s.address}>
                  <td>
                    <code>{s.address}</code>
                  </td>
                  <td>{s.channel}</td>
                  <td>
                    <span className="badge bad">{s.reason.replaceAll("_", " ")}</span>
                  </td>
                  <td>{s.provider ?? "—"}</td>
                  <td>{new Date(s.createdAt).toLocaleString()}</td>
                  <td>
                    <button
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
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} />
    </>
  );
}
