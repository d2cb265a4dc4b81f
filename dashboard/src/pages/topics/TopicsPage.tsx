import { CURSOR_PAGES } from "../../api/cursor-pages";
import { MoreButton } from "../../ui/MoreButton";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { Link, useNavigate } from "react-router";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { topicPath } from "./members";
import "./topics.css";

type TopicInput = components["schemas"]["TopicInput"];

/** Named lists of subscribers that a trigger can address as `to: { topic: key }`. */
export function TopicsPage() {
  const list = useInfiniteQuery({
    queryKey: ["topics"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/topics", { params: { query: { cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <PageHeader title="Topics" />
      <CreateTopic />
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="topics" />
      ) : rows.length === 0 ? (
        <p className="empty muted">No topics yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Key</th>
                <th>Name</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.key} data-topic={t.key}>
                  <td>
                    <Link to={topicPath(t.key)}>
                      <code>{t.key}</code>
                    </Link>
                  </td>
                  <td>{t.name}</td>
                  <td className="topic-nowrap">{new Date(t.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} className="topic-more" />
    </>
  );
}

function CreateTopic() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<TopicInput>({ defaultValues: { key: "", name: "" } });
  const create = useMutation({
    mutationFn: (body: TopicInput) => unwrap(api.POST("/v1/topics", { body })),
    onSuccess: (topic) => {
      void queryClient.invalidateQueries({ queryKey: ["topics"] });
      navigate(topicPath(topic.key));
    },
  });
  const apiError = create.error instanceof ApiError ? create.error : null;
  const keyError = apiError?.fieldError("key") ?? (apiError?.problem.code === "topic_exists" ? apiError.problem.detail : undefined);
  const nameError = apiError?.fieldError("name");

  return (
    <form className="card topic-create" onSubmit={form.handleSubmit((values) => create.mutate(values))} noValidate>
      <h2>New topic</h2>
      <div className="topic-create-fields">
        <Field label="Key" hint="Lowercase letters, digits, '.', '_', ':' and '-', e.g. project:42:watchers" error={keyError}>
          <input autoComplete="off" spellCheck={false} {...form.register("key")} />
        </Field>
        <Field label="Name" error={nameError}>
          <input autoComplete="off" {...form.register("name")} />
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create topic"}
        </button>
      </div>
      {create.error && !keyError && !nameError ? <ProblemView error={create.error} /> : null}
    </form>
  );
}
