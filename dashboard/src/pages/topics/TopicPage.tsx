import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList, rowsOf } from "../../ui/DataList";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { parseIds } from "./members";
import { addMembersMutation, deleteTopicMutation, membersQuery, removeMembersMutation, renameTopicMutation, topicQuery } from "./queries";
import { andThen } from "../../api/mutations";
import "./topics.css";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";
import { Textarea } from "../../ui/Textarea";
import { Card } from "../../ui/Card";

/** A topic's members: added many at once from pasted ids, removed by ticking several. */
export function TopicPage() {
  const { key = "" } = useParams();
  // Keyed by key: a selection or pasted ids never carry over to the next topic opened.
  return <Topic key={key} topicKey={key} />;
}

function Topic({ topicKey: key }: { topicKey: string }) {
  const api = useApi();
  const navigate = useNavigate();
  const [renaming, setRenaming] = useState(false);
  const topic = useQuery(topicQuery(api, key));
  const [dialog, ask] = useConfirm();
  const remove = useMutation(andThen(deleteTopicMutation(api, key), () => navigate("/topics")));

  const back = <Link to="/topics">← Topics</Link>;
  if (topic.error) {
    return (
      <>
        {back}
        <PageHeader title={<code>{key}</code>} />
        <ProblemView error={topic.error} />
      </>
    );
  }
  if (!topic.data) return <Loading what="the topic" />;

  return (
    <>
      {back}
      {dialog}
      <PageHeader title={topic.data.name}>
        <Button type="button" onClick={() => setRenaming(true)} disabled={renaming}>
          Rename
        </Button>
        <Button
          type="button"
          variant="danger"
          disabled={remove.isPending}
          onClick={async () => {
            const yes = await ask({
              title: `Delete topic ${key}?`,
              body: "Its memberships go with it; the subscribers stay.",
              confirm: "Delete topic",
              danger: true,
            });
            if (yes) remove.mutate();
          }}
        >
          Delete topic
        </Button>
      </PageHeader>
      <p className="muted">
        <code>{key}</code> · <span data-testid="member-count">{topic.data.memberCount}</span>{" "}
        {topic.data.memberCount === 1 ? "member" : "members"} · trigger with <code>{`"to": { "topic": "${key}" }`}</code>
      </p>
      {remove.error ? <ProblemView error={remove.error} /> : null}
      {renaming ? <RenameTopic topicKey={key} name={topic.data.name} onDone={() => setRenaming(false)} /> : null}
      <AddMembers topicKey={key} />
      <Members topicKey={key} />
    </>
  );
}

function RenameTopic({ topicKey: key, name, onDone }: { topicKey: string; name: string; onDone: () => void }) {
  const api = useApi();
  const [value, setValue] = useState(name);
  const rename = useMutation(andThen(renameTopicMutation(api, key), onDone));
  const nameError = rename.error instanceof ApiError ? rename.error.fieldError("name") : undefined;

  return (
    <Card
      as="form"
      onSubmit={(e) => {
        e.preventDefault();
        rename.mutate(value);
      }}
    >
      <Field label="Topic name" error={nameError} hint="The key stays: triggers and memberships refer to it.">
        <Input value={value} autoComplete="off" onChange={(e) => setValue(e.target.value)} />
      </Field>
      {rename.error && !nameError ? <ProblemView error={rename.error} /> : null}
      <div className="topic-actions">
        <Button type="submit" variant="primary" disabled={rename.isPending}>
          {rename.isPending ? "Saving…" : "Save name"}
        </Button>
        <Button type="button" onClick={onDone} disabled={rename.isPending}>
          Cancel
        </Button>
      </div>
    </Card>
  );
}

function AddMembers({ topicKey }: { topicKey: string }) {
  const api = useApi();
  const [text, setText] = useState("");
  const ids = parseIds(text);
  const add = useMutation(andThen(addMembersMutation(api, topicKey), () => setText("")));

  function submit(event: FormEvent) {
    event.preventDefault();
    if (ids.length) add.mutate(ids);
  }

  return (
    <Card as="form" onSubmit={submit}>
      <h2>Add members</h2>
      <Field
        label="Subscriber ids"
        hint="One per line, or separated by spaces or commas. Unknown ids are created as subscribers without a profile."
      >
        <Textarea className="code topic-ids" rows={4} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />
      </Field>
      <div className="topic-actions">
        <Button type="submit" variant="primary" disabled={!ids.length || add.isPending}>
          {add.isPending ? "Adding…" : ids.length ? `Add ${ids.length}` : "Add"}
        </Button>
        {add.data ? (
          <span role="status" className="muted">
            Added {add.data.added}
            {add.data.alreadyMembers ? `; ${add.data.alreadyMembers} already members` : ""}.
          </span>
        ) : null}
      </div>
      {add.error ? <ProblemView error={add.error} /> : null}
    </Card>
  );
}

function Members({ topicKey }: { topicKey: string }) {
  const api = useApi();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const list = useInfiniteQuery(membersQuery(api, topicKey));
  const [dialog, ask] = useConfirm();
  const remove = useMutation(andThen(removeMembersMutation(api, topicKey), () => setSelected(new Set())));
  const rows = rowsOf(list);
  const allTicked = rows.length > 0 && rows.every((m) => selected.has(m.subscriberId));

  function toggle(id: string, on: boolean) {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  }

  return (
    <Card aria-labelledby="members-title">
      {dialog}
      <div className="topic-members-header">
        <h2 id="members-title">Members</h2>
        <Button
          type="button"
          variant="danger"
          disabled={selected.size === 0 || remove.isPending}
          onClick={async () => {
            const count = `${selected.size} ${selected.size === 1 ? "member" : "members"}`;
            const yes = await ask({
              title: `Remove ${count} from ${topicKey}?`,
              body: "The subscribers stay.",
              confirm: `Remove ${count}`,
              danger: true,
            });
            if (yes) remove.mutate([...selected]);
          }}
        >
          {remove.isPending ? "Removing…" : `Remove selected (${selected.size})`}
        </Button>
      </div>
      {remove.data !== undefined && !remove.isPending ? (
        <p role="status" className="muted">
          Removed {remove.data}.
        </p>
      ) : null}
      {remove.error ? <ProblemView error={remove.error} /> : null}
      <DataList
        list={list}
        what="members"
        empty="No members yet."
        compact
        more="More members"
        moreClassName="topic-more"
        columns={[
          <Checkbox
            key="all"
            aria-label="Select all loaded members"
            checked={allTicked}
            onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((m) => m.subscriberId)) : new Set())}
          />,
          "Subscriber",
          "Added",
        ]}
        row={(m) => (
          <tr key={m.subscriberId} data-member={m.subscriberId}>
            <td className="topic-tick">
              <Checkbox
                aria-label={`Select ${m.subscriberId}`}
                checked={selected.has(m.subscriberId)}
                onChange={(e) => toggle(m.subscriberId, e.target.checked)}
              />
            </td>
            <td>
              <Link to={`/subscribers/${encodeURIComponent(m.subscriberId)}`}>
                <code>{m.subscriberId}</code>
              </Link>
            </td>
            <td className="topic-nowrap">{new Date(m.addedAt).toLocaleString()}</td>
          </tr>
        )}
      />
    </Card>
  );
}
