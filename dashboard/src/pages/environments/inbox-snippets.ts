// Copy-paste code for the Novu Inbox clients pointed at this Clarion, with the pinned versions we
// test against. @novu/react 3.19.2's <Inbox> reads the API address from `backendUrl` (it has no
// `apiUrl` prop), while @novu/js's `new Novu()` takes `apiUrl` (there `backendUrl` is deprecated).

export const NOVU_CLIENT_VERSION = "3.19.2";

export interface InboxTarget {
  applicationIdentifier: string;
  apiUrl: string;
  socketUrl: string;
  hmacRequired: boolean;
}

export function reactSnippet(target: InboxTarget): string {
  const hash = target.hmacRequired
    ? "  // subscriberHash comes from your backend (see the hash snippet): never the secret itself.\n"
    : "  // This environment does not require subscriberHash; every environment that does needs it from your backend.\n";
  return `// npm install @novu/react@${NOVU_CLIENT_VERSION}
import { Inbox } from "@novu/react";

export function NotificationBell({ subscriberId, subscriberHash }) {
${hash}  return (
    <Inbox
      applicationIdentifier="${target.applicationIdentifier}"
      subscriber={subscriberId}
      subscriberHash={subscriberHash}
      backendUrl="${target.apiUrl}"
      socketUrl="${target.socketUrl}"
      socketOptions={{ socketType: "cloud" }}
    />
  );
}
`;
}

export function jsSnippet(target: InboxTarget): string {
  return `// npm install @novu/js@${NOVU_CLIENT_VERSION}
import { Novu } from "@novu/js";

const novu = new Novu({
  applicationIdentifier: "${target.applicationIdentifier}",
  subscriber: subscriberId,
  subscriberHash, // from your backend (see the hash snippet)${target.hmacRequired ? "" : "; this environment does not require it"}
  apiUrl: "${target.apiUrl}",
  socketUrl: "${target.socketUrl}",
  socketOptions: { socketType: "cloud" },
});

const { data } = await novu.notifications.list({ limit: 20 });
novu.on("notifications.notification_received", ({ result }) => console.log("new", result));
novu.on("notifications.unread_count_changed", ({ result }) => console.log("unread", result));
`;
}

/** Computing the hash where the secret lives: the browser gets the hash, never the secret. */
export const hashSnippet = () => `// On your backend (Node): the secret stays there.
import { createHmac } from "node:crypto";

const subscriberHash = createHmac("sha256", process.env.CLARION_INBOX_HMAC_SECRET)
  .update(subscriberId)
  .digest("hex");
`;
