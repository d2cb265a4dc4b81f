import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Link, useParams } from "react-router";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { ActivityCard } from "./ActivityCard";
import { ChannelsCard } from "./ChannelsCard";
import { EraseDialog } from "./EraseDialog";
import { MessagesCard } from "./MessagesCard";
import { PreferencesCard } from "./PreferencesCard";
import { TenantPreferencesCard } from "./TenantPreferencesCard";
import { ScheduleCard } from "./ScheduleCard";
import { ProfileCard } from "./ProfileCard";
import { subscriberQuery } from "./queries";
import "./subscribers.css";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";

type Erased = components["schemas"]["SubscriberErased"];

/** One subscriber: profile, channel addresses, preferences, topics, messages, activity, and erasure. */
export function SubscriberPage() {
  const { id = "" } = useParams();
  // Keyed by id: edits in progress and an erasure never carry over to the next subscriber opened.
  return <Subscriber key={id} id={id} />;
}

function Subscriber({ id }: { id: string }) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [erased, setErased] = useState<Erased | null>(null);
  const detail = useQuery({
    ...subscriberQuery(api, id),
    enabled: erased === null,
  });

  const back = <Link to="/subscribers">← Subscribers</Link>;
  if (erased) return <ErasedSummary erased={erased} back={back} />;
  if (detail.error) {
    return (
      <>
        {back}
        <PageHeader title={<code>{id}</code>} />
        <ProblemView error={detail.error} />
      </>
    );
  }
  if (!detail.data) return <Loading what="the subscriber" />;
  const subscriber = detail.data;

  return (
    <>
      {back}
      <PageHeader title={<code className="sub-title-id">{subscriber.subscriberId}</code>}>
        <Button type="button" variant="danger" onClick={() => setConfirming(true)}>
          Delete…
        </Button>
      </PageHeader>
      <div className="subscriber-grid">
        <ProfileCard subscriber={subscriber} />
        <div>
          <ChannelsCard subscriber={subscriber} />
          <Card aria-labelledby="topics-title">
            <h2 id="topics-title">Topics</h2>
            {subscriber.topics.length ? (
              <ul className="sub-plain sub-topic-list">
                {subscriber.topics.map((key) => (
                  <li key={key}>
                    <Link to={`/topics/${encodeURIComponent(key)}`}>
                      <code>{key}</code>
                    </Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">Not a member of any topic.</p>
            )}
          </Card>
        </div>
      </div>
      <PreferencesCard subscriberId={subscriber.subscriberId} preferences={subscriber.preferences} />
      <TenantPreferencesCard subscriberId={subscriber.subscriberId} />
      <ScheduleCard subscriber={subscriber} />
      <MessagesCard subscriberId={subscriber.subscriberId} />
      <ActivityCard subscriberId={subscriber.subscriberId} />
      {confirming ? (
        <EraseDialog
          subscriberId={subscriber.subscriberId}
          onClose={() => setConfirming(false)}
          onErased={(result) => {
            setErased(result);
          }}
        />
      ) : null}
    </>
  );
}

function ErasedSummary({ erased, back }: { erased: Erased; back: ReactNode }) {
  const e = erased.erased;
  return (
    <>
      {back}
      <PageHeader
        title={
          <>
            Erased <code>{erased.subscriberId}</code>
          </>
        }
      />
      <Card role="status">
        <p>The subscriber is gone. What was removed:</p>
        <dl className="sub-facts">
          <dt>Profile</dt>
          <dd>removed</dd>
          <dt>Channel addresses</dt>
          <dd>{e.channels}</dd>
          <dt>Preference settings</dt>
          <dd>{e.preferences}</dd>
          <dt>Topic memberships</dt>
          <dd>{e.topics}</dd>
          <dt>Messages redacted</dt>
          <dd>{e.messagesRedacted}</dd>
          <dt>Suppressions lifted</dt>
          <dd>{e.suppressions}</dd>
          <dt>Waiting steps cancelled</dt>
          <dd>{e.waitingStepsCancelled}</dd>
        </dl>
      </Card>
    </>
  );
}
