import { useInfiniteQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import { Loading } from "../../ui/Loading";
import { MoreButton } from "../../ui/MoreButton";
import { ProblemView } from "../../ui/ProblemView";
import { CHANNEL_LABEL, type Channel } from "./preferences";

type Entry = components["schemas"]["SubscriberActivityPage"]["data"][number];
type Change = NonNullable<Entry["preferences"]>;

const WHO: Record<string, string> = {
  one_click: "one-click unsubscribe",
  preference_page: "preference page",
  api: "API",
  inbox: "Inbox",
};

const flag = (on: boolean | null | undefined) => (on === null ? "follows global" : on ? "on" : "off");

/** A change as a reader says it: "Email off; news: SMS on". */
function describeChange(change: Change): string {
  const parts = Object.entries(change.channels ?? {}).map(([ch, on]) => `${CHANNEL_LABEL[ch as Channel]} ${flag(on)}`);
  for (const [key, flags] of Object.entries(change.workflows ?? {})) {
    const inner =
      flags === null
        ? "follows global"
        : Object.entries(flags)
            .map(([ch, on]) => `${CHANNEL_LABEL[ch as Channel]} ${flag(on)}`)
            .join(", ");
    parts.push(`${key}: ${inner}`);
  }
  if (change.quietHours !== undefined)
    parts.push(change.quietHours ? `quiet hours ${change.quietHours.start}–${change.quietHours.end}` : "no quiet hours");
  return parts.join("; ");
}

function describe(entry: Entry): string {
  switch (entry.type) {
    case "created":
      return "Created through the API";
    case "updated":
      return "Profile updated through the API";
    case "preferences_changed":
      return `Preferences changed by ${WHO[entry.reason ?? ""] ?? entry.reason}: ${entry.preferences ? describeChange(entry.preferences) : ""}`;
    case "suppressed":
      return `${entry.channel ?? "An"} address suppressed (${entry.reason})`;
  }
}

/** The subscriber's timeline, newest first: profile writes, preference changes and who made them, suppressions. */
export function ActivityCard({ subscriberId }: { subscriberId: string }) {
  const list = useInfiniteQuery({
    // Under ["subscriber", id]: the profile and preference edits' invalidation refreshes it too.
    queryKey: ["subscriber", subscriberId, "activity"],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET("/v1/subscribers/{subscriberId}/activity", { params: { path: { subscriberId }, query: { cursor: pageParam, limit: 20 } } }),
      ),
    ...CURSOR_PAGES,
  });
  const entries = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <section className="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="activity" />
      ) : entries.length === 0 ? (
        <p className="muted">Nothing recorded yet.</p>
      ) : (
        <ol className="sub-plain sub-activity">
          {entries.map((e) => (
            <li key={e.id} data-activity={e.type}>
              <time dateTime={e.createdAt} className="muted sub-nowrap">
                {new Date(e.createdAt).toLocaleString()}
              </time>{" "}
              {describe(e)}
            </li>
          ))}
        </ol>
      )}
      <MoreButton list={list} label="More activity" className="sub-more" />
    </section>
  );
}
