import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { ConfirmDialog, useConfirm } from "../../ui/ConfirmDialog";
import { useSession } from "../../session/session";
import { InAppSettingsCard } from "./InAppSettingsCard";
import { McpKeyOptions } from "./McpKeyOptions";
import { NewKey } from "./NewKey";
import { PreferencePageCard } from "./PreferencePageCard";
import {
  type ApiKey,
  createKeyMutation,
  deleteEnvironmentMutation,
  environmentQuery,
  keysQuery,
  revokeKeyMutation,
  rotateKeyMutation,
} from "./queries";
import { andThen } from "../../api/mutations";
import "./environments.css";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";
import { Badge, type BadgeTone } from "../../ui/Badge";
import { Card } from "../../ui/Card";
import type { McpScope } from "../../../../src/contract/api-keys";

const STATUS_BADGE: Record<ApiKey["status"], BadgeTone> = { active: "ok", expiring: "warn", expired: "", revoked: "bad" };
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");
/** A date input's day, to its last second in UTC. */
const endOfDay = (day: string) => (day ? new Date(`${day}T23:59:59.000Z`).toISOString() : undefined);

/**
 * One environment: its API keys (create, shown once; rotate with an overlap; revoke), its Inbox
 * settings and its preference page's branding.
 */
export function EnvironmentKeysPage() {
  const { slug = "" } = useParams();
  const api = useApi();
  const [includeRevoked, setIncludeRevoked] = useState(false);
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  // null: an API key; a list: an MCP key with these scopes.
  const [scopes, setScopes] = useState<McpScope[] | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [overlapHours, setOverlapHours] = useState("24");

  const environment = useQuery(environmentQuery(api, slug));
  const keys = useQuery(keysQuery(api, slug, includeRevoked));
  const navigate = useNavigate();
  const { refresh } = useSession();
  const [dialog, ask] = useConfirm();
  const removeEnvironment = useMutation(
    andThen(deleteEnvironmentMutation(api, slug), async () => {
      navigate("/environments");
      // The switcher drops it; working in it, the dashboard moves to another environment.
      await refresh();
    }),
  );
  const askToDelete = async (name: string) => {
    const yes = await ask({
      title: `Delete the environment ${name}?`,
      body: (
        <p>
          Its API keys stop working at once, and its workflows, subscribers, topics, integrations, variables, triggers and messages are
          deleted. This cannot be undone: export what you keep first (<code>npx clarion workflows export</code>).
        </p>
      ),
      confirm: "Delete environment",
      danger: true,
    });
    if (yes) removeEnvironment.mutate();
  };

  const create = useMutation(
    andThen(createKeyMutation(api, slug), (created) => {
      // Only a replay (an Idempotency-Key, which the dashboard never sends) comes without the secret.
      setSecret("key" in created ? created.key : null);
      setName("");
      setExpires("");
      setScopes(null);
    }),
  );
  const revoke = useMutation(andThen(revokeKeyMutation(api, slug), () => setRevoking(null)));
  const rotate = useMutation(
    andThen(rotateKeyMutation(api, slug), (rotation) => {
      setRotating(null);
      setSecret("key" in rotation.key ? rotation.key.key : null);
    }),
  );
  const fieldError = (error: unknown, path: string) => (error instanceof ApiError ? error.fieldError(path) : undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    const kind = scopes === null ? { kind: "api" as const } : { kind: "mcp" as const, scopes };
    create.mutate({ name: name.trim() || "default", expiresAt: endOfDay(expires), ...kind });
  }

  if (environment.error) {
    return (
      <>
        <PageHeader title="API keys" />
        <ProblemView error={environment.error} />
        <Link to="/environments">All environments</Link>
      </>
    );
  }
  const title = environment.data ? `${environment.data.name}: API keys` : "API keys";

  return (
    <>
      <PageHeader title={title}>
        <Link to="/environments">All environments</Link>
        <Button
          type="button"
          variant="danger"
          disabled={removeEnvironment.isPending || !environment.data}
          onClick={() => void askToDelete(environment.data?.name ?? slug)}
        >
          Delete environment
        </Button>
      </PageHeader>
      {dialog}
      {removeEnvironment.error ? <ProblemView error={removeEnvironment.error} /> : null}
      <p className="muted">
        Keys of <code>{slug}</code> act in this environment only. A revoked key is refused at once here and within 60 s everywhere; a
        rotated one works until its overlap ends.
      </p>
      {secret ? <NewKey secret={secret} onDone={() => setSecret(null)} /> : null}
      <Card as="form" className="inline-form" onSubmit={submit} aria-label="New API key">
        <Field label="Key name" error={fieldError(create.error, "name")}>
          <Input value={name} placeholder="ci" maxLength={100} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Expires (optional)" error={fieldError(create.error, "expiresAt")}>
          <Input type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </Field>
        <McpKeyOptions scopes={scopes} onChange={setScopes} error={fieldError(create.error, "scopes")} />
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create key
        </Button>
      </Card>
      {create.error && !["name", "expiresAt", "scopes"].some((path) => fieldError(create.error, path)) ? (
        <ProblemView error={create.error} />
      ) : null}
      {revoke.error ? <ProblemView error={revoke.error} /> : null}
      <div className="filters">
        <label>
          <Checkbox checked={includeRevoked} onChange={(e) => setIncludeRevoked(e.target.checked)} /> Show revoked and expired keys
        </label>
      </div>
      <DataList
        list={keys}
        what="keys"
        empty="No keys in use: create one above."
        columns={["Name", "Prefix", "Kind", "Status", "Created", "Last used", "Expires", { label: "Actions" }]}
        row={(key) => (
          <tr key={key.id} data-key-prefix={key.prefix}>
            <td>{key.name}</td>
            <td>
              <code>{key.prefix}…</code>
            </td>
            <td>{key.kind === "mcp" ? <Badge tone="">{`MCP: ${key.scopes.join(", ")}`}</Badge> : "API"}</td>
            <td>
              <Badge tone={STATUS_BADGE[key.status]}>{key.status}</Badge>
            </td>
            <td>{when(key.createdAt)}</td>
            <td>{when(key.lastUsedAt)}</td>
            <td>{when(key.revokedAt ?? key.expiresAt)}</td>
            <td>
              {key.status === "active" || key.status === "expiring" ? (
                <div className="key-actions">
                  {key.status === "active" ? (
                    <Button type="button" onClick={() => setRotating(key)} aria-label={`Rotate ${key.prefix}`}>
                      Rotate
                    </Button>
                  ) : null}
                  <Button type="button" variant="danger" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.prefix}`}>
                    Revoke
                  </Button>
                </div>
              ) : null}
            </td>
          </tr>
        )}
      />
      {environment.data ? (
        <div className="settings-grid">
          <InAppSettingsCard slug={slug} />
          <PreferencePageCard slug={slug} />
        </div>
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirm="Revoke key"
        danger
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Requests with <code>{revoking?.prefix}…</code> ({revoking?.name}) will be refused. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={rotating !== null}
        title="Rotate this key?"
        confirm="Rotate key"
        busy={rotate.isPending}
        onConfirm={() => rotating && rotate.mutate({ key: rotating, overlapHours: Number(overlapHours) })}
        onCancel={() => setRotating(null)}
      >
        <p>
          A new key replaces <code>{rotating?.prefix}…</code>; the old one keeps working for the overlap, so clients can move over.
        </p>
        <Field label="Overlap (hours)" error={fieldError(rotate.error, "overlapHours")} hint="0 ends the old key at once; at most 720.">
          <Input type="number" min={0} max={720} value={overlapHours} onChange={(e) => setOverlapHours(e.target.value)} />
        </Field>
        {rotate.error && !fieldError(rotate.error, "overlapHours") ? <ProblemView error={rotate.error} /> : null}
      </ConfirmDialog>
    </>
  );
}
