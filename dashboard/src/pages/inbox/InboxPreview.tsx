import { Inbox } from "@novu/react";
import { useQuery } from "@tanstack/react-query";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import type { InAppSettings } from "../environments/queries";
import { subscriberHashQuery } from "./queries";

/**
 * Novu's own <Inbox/>, given the props the environment page's snippet gives a team, for one
 * subscriber: what that person sees in the team's app.
 */
export function InboxPreview({ settings, subscriberId, open }: { settings: InAppSettings; subscriberId: string; open: boolean }) {
  const hash = useQuery(subscriberHashQuery(settings.hmacSecret, subscriberId));
  if (hash.error) return <ProblemView error={hash.error} />;
  if (!hash.data) return <Loading what="the Inbox" />;
  return (
    <div className="inbox-preview" data-testid="inbox-preview">
      <Inbox
        // A new subscriber is a new session: the Inbox starts over rather than mixing two people's feeds.
        key={subscriberId}
        applicationIdentifier={settings.applicationIdentifier}
        subscriber={subscriberId}
        subscriberHash={hash.data}
        backendUrl={settings.apiUrl}
        socketUrl={settings.socketUrl}
        socketOptions={{ socketType: "cloud" }}
        open={open || undefined}
        placement="bottom-start"
      />
    </div>
  );
}
