import type { components } from "../../api/openapi";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";

type Subscriber = components["schemas"]["SubscriberDetail"];

/** Where each channel reaches the subscriber. Push tokens and webhook URLs come masked from the API. */
export function ChannelsCard({ subscriber }: { subscriber: Subscriber }) {
  const { push, chat } = subscriber.channels;
  return (
    <Card aria-labelledby="channels-title">
      <h2 id="channels-title">Channel addresses</h2>
      <dl className="sub-facts">
        <dt>Email</dt>
        <dd>{subscriber.email ?? <span className="muted">none</span>}</dd>
        <dt>SMS</dt>
        <dd>{subscriber.phone ?? <span className="muted">none</span>}</dd>
        <dt>Push</dt>
        <dd>
          {push.length ? (
            <ul className="sub-plain">
              {push.map((p) => (
                <li key={`${p.provider}:${p.token}`}>
                  <Badge>{p.provider}</Badge> <code>{p.token}</code>
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
        <dt>Chat</dt>
        <dd>
          {chat.length ? (
            <ul className="sub-plain">
              {chat.map((c) => {
                const address = "webhookUrl" in c ? c.webhookUrl : c.channelId;
                return (
                  <li key={`${c.provider}:${address}`}>
                    <Badge>{c.provider}</Badge> <code>{address}</code>
                  </li>
                );
              })}
            </ul>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
      </dl>
    </Card>
  );
}
