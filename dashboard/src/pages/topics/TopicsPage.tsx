import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { Link, useNavigate } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { DataList } from "../../ui/DataList";
import { Field } from "../../ui/Field";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { topicPath } from "./members";
import { createTopicMutation, type TopicInput, topicsQuery } from "./queries";
import { andThen } from "../../api/mutations";
import "./topics.css";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** Named lists of subscribers that a trigger can address as `to: { topic: key }`. */
export function TopicsPage() {
  const api = useApi();
  const list = useInfiniteQuery(topicsQuery(api));

  return (
    <>
      <PageHeader title="Topics" />
      <CreateTopic />
      <DataList
        list={list}
        what="topics"
        empty="No topics yet."
        moreClassName="topic-more"
        columns={["Key", "Name", "Created"]}
        row={(t) => (
          <tr key={t.key} data-topic={t.key}>
            <td>
              <Link to={topicPath(t.key)}>
                <code>{t.key}</code>
              </Link>
            </td>
            <td>{t.name}</td>
            <td className="topic-nowrap">{new Date(t.createdAt).toLocaleString()}</td>
          </tr>
        )}
      />
    </>
  );
}

function CreateTopic() {
  const api = useApi();
  const navigate = useNavigate();
  const form = useForm<TopicInput>({ defaultValues: { key: "", name: "" } });
  const create = useMutation(andThen(createTopicMutation(api), (topic) => navigate(topicPath(topic.key))));
  const apiError = create.error instanceof ApiError ? create.error : null;
  const keyError = apiError?.fieldError("key") ?? (apiError?.problem.code === "topic_exists" ? apiError.problem.detail : undefined);
  const nameError = apiError?.fieldError("name");

  return (
    <Card as="form" className="topic-create" onSubmit={form.handleSubmit((values) => create.mutate(values))} noValidate>
      <h2>New topic</h2>
      <div className="topic-create-fields">
        <Field label="Key" hint="Lowercase letters, digits, '.', '_', ':' and '-', e.g. project:42:watchers" error={keyError}>
          <Input autoComplete="off" spellCheck={false} {...form.register("key")} />
        </Field>
        <Field label="Name" error={nameError}>
          <Input autoComplete="off" {...form.register("name")} />
        </Field>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create topic"}
        </Button>
      </div>
      {create.error && !keyError && !nameError ? <ProblemView error={create.error} /> : null}
    </Card>
  );
}
