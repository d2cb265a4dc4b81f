import { useInfiniteQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { DataList } from "../../ui/DataList";
import { CHANNEL_LABEL, type Channel } from "./preferences";
import { subscriberActivityQuery } from "./queries";
import { describeSchedule } from "./schedule";
import { Card } from "../../ui/Card";

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
  if (change.schedule !== undefined) parts.push(describeSchedule(change.schedule));
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
  const api = useApi();
  // Under the subscriber's key: the profile and preference edits' invalidation refreshes it too.
  const list = useInfiniteQuery(subscriberActivityQuery(api, subscriberId));

  return (
    <Card aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <DataList list={list} what="activity" empty="Nothing recorded yet." compact more="More activity" moreClassName="sub-more">
        {(entries) => (
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
      </DataList>
    </Card>
  );
}
