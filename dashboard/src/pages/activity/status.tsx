import { Badge } from "../../ui/Badge";
const TONE: Record<string, "ok" | "warn" | "bad" | "info" | undefined> = {
  sent: "ok",
  delivered: "ok",
  opened: "ok",
  clicked: "ok",
  completed: "ok",
  queued: "info",
  sending: "info",
  accepted: "info",
  processing: "info",
  waiting: "warn",
  retrying: "warn",
  // A run's control steps: ran as they should, or went past a delay, digest or throttle.
  ran: "ok",
  passed: "ok",
  failed: "bad",
  bounced: "bad",
  undeliverable: "bad",
  cancelled: undefined,
  skipped: undefined,
  // An in-app message's Inbox life: seen and read are the subscriber's answers, as an open or a click is.
  seen: "ok",
  read: "ok",
  archived: undefined,
};

/** A message's or a trigger's status as a coloured badge. */
export function StatusBadge({ status }: { status: string }) {
  const tone = TONE[status];
  return (
    <Badge tone={tone} data-status={status}>
      {status}
    </Badge>
  );
}

export const formatTime = (iso: string) => new Date(iso).toLocaleString();
