import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { useSession } from "../../session/session";
import { Field } from "../../ui/Field";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { standingError } from "../../ui/standing-errors";
import { createEnvironmentMutation, environmentsQuery } from "./queries";
import { andThen } from "../../api/mutations";
import "./environments.css";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";

const SLUG_HINT =
  "A lower-case letter, then lower-case letters, digits and '-'; it appears in the keys (ck_<slug without '-'>_…, as ck_dev_… and ck_prod_…) and never changes.";

/** The deployment's environments (admin only): each one's data and keys are its own. */
export function EnvironmentsPage() {
  const api = useApi();
  const { environment, refresh } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const list = useInfiniteQuery(environmentsQuery(api));
  const create = useMutation(
    andThen(createEnvironmentMutation(api), async (created) => {
      // The switcher lists it too.
      await refresh();
      navigate(`/environments/${created.slug}`);
    }),
  );
  const body = { name: name.trim(), slug: slug.trim() };
  const error = standingError(create.error, create.variables, body);
  const fieldError = (path: string) => (error instanceof ApiError ? error.fieldError(path) : undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(body);
  }

  return (
    <>
      <PageHeader title="Environments & API keys" />
      <p className="muted">
        Each environment has its own workflows, subscribers, integrations and messages, and its own API keys. The admin credential works in
        all of them: choose one at the top of every page.
      </p>
      <div className="environments-grid">
        <section aria-labelledby="environments-title">
          <h2 id="environments-title">Environments</h2>
          <DataList
            list={list}
            what="environments"
            empty="No environments yet: create the first one."
            columns={["Name", "Slug", "Created", { label: "Actions" }]}
            row={(e) => (
              <tr key={e.slug} data-environment={e.slug}>
                <td>
                  {e.name} {e.slug === environment ? <Badge tone="info">current</Badge> : null}
                </td>
                <td>
                  <code>{e.slug}</code>
                </td>
                <td>{new Date(e.createdAt).toLocaleString()}</td>
                <td>
                  <Link to={`/environments/${e.slug}`} aria-label={`API keys of ${e.name}`}>
                    API keys
                  </Link>
                </td>
              </tr>
            )}
          />
        </section>
        <Card as="form" onSubmit={submit} aria-labelledby="new-environment-title">
          <h2 id="new-environment-title">New environment</h2>
          <Field label="Name" error={fieldError("name")}>
            <Input value={name} placeholder="Staging" onChange={(e) => setName(e.target.value)} required maxLength={100} />
          </Field>
          <Field label="Slug" error={fieldError("slug")} hint={SLUG_HINT}>
            <Input
              value={slug}
              placeholder="staging"
              onChange={(e) => setSlug(e.target.value)}
              required
              spellCheck={false}
              autoCapitalize="off"
            />
          </Field>
          {error && !fieldError("name") && !fieldError("slug") ? <ProblemView error={error} /> : null}
          <Button type="submit" variant="primary" disabled={create.isPending || !name.trim() || !slug.trim()}>
            Create environment
          </Button>
        </Card>
      </div>
    </>
  );
}
