import { Inbox, InboxContent } from "@novu/react";
import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import type { InAppSettings } from "../environments/queries";
import { subscriberHashQuery, tenantContextHashQuery } from "./queries";

/** Narrower than Novu's 400 px popover and its margin: there it would hang off the screen, sideways or above. */
const NARROW = "(max-width: 440px)";
const subscribeNarrow = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
};
const isNarrow = () => window.matchMedia(NARROW).matches;

/**
 * Novu's own <Inbox/>, given the props the environment page's snippet gives a team, for one
 * subscriber: what that person sees in the team's app. On a phone the list is shown in the page, as an app
 * would give it the whole screen, rather than in the bell's popover.
 */
export function InboxPreview({
  settings,
  subscriberId,
  tenant,
  open,
}: {
  settings: InAppSettings;
  subscriberId: string;
  /** A tenant's Inbox (Novu's `context: { tenant }` and its hash): only that tenant's notifications; "" for those of no context. */
  tenant: string;
  open: boolean;
}) {
  const hash = useQuery(subscriberHashQuery(settings.hmacSecret, subscriberId));
  const scoped = useQuery({ ...tenantContextHashQuery(settings.hmacSecret, tenant), enabled: tenant !== "" });
  const narrow = useSyncExternalStore(subscribeNarrow, isNarrow);
  if (hash.error ?? scoped.error) return <ProblemView error={hash.error ?? scoped.error} />;
  if (!hash.data || (tenant !== "" && !scoped.data)) return <Loading what="the Inbox" />;
  const session = `${subscriberId}\u0000${tenant}`;
  // A new subscriber or tenant is a new session (the key): the Inbox starts over rather than mixing two people's feeds.
  const props = {
    applicationIdentifier: settings.applicationIdentifier,
    subscriber: subscriberId,
    subscriberHash: hash.data,
    backendUrl: settings.apiUrl,
    socketUrl: settings.socketUrl,
    socketOptions: { socketType: "cloud" as const },
    ...(tenant !== "" && scoped.data ? { context: { tenant }, contextHash: scoped.data } : {}),
  };
  return (
    <div className={narrow ? "inbox-preview inline" : "inbox-preview"} data-testid="inbox-preview">
      {/* Novu's Inbox draws the bell unless it is given children ("children" in props), even undefined ones. */}
      {narrow ? (
        <Inbox key={session} {...props}>
          <InboxContent />
        </Inbox>
      ) : (
        <Inbox key={session} {...props} open={open || undefined} placement="bottom-start" />
      )}
    </div>
  );
}
