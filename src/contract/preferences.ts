// A subscriber's stored opt-outs, as the engine decides by them and D1 keeps them (the schema
// types its JSON columns with these): no imports, so the engine stays apart from storage.

type ChannelName = "email" | "sms" | "push" | "chat" | "in_app";

export const SCHEDULE_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type ScheduleDay = (typeof SCHEDULE_DAYS)[number];

/** Local `HH:MM` (24 h); `end` before `start` runs past midnight into the next day. */
export interface ScheduleHours {
  start: string;
  end: string;
}

/**
 * When a subscriber accepts non-critical email, SMS, push and chat: the windows of each enabled
 * day, in their time zone (Novu's Inbox "Schedule"). A disabled schedule keeps its days so the
 * Inbox can turn it back on as it was.
 */
export interface DeliverySchedule {
  enabled: boolean;
  days: Partial<Record<ScheduleDay, { enabled: boolean; hours: ScheduleHours[] }>>;
}

/** Opt-outs: `false` turns a channel off globally or for one workflow; critical workflows ignore them. */
export interface SubscriberPreferences {
  channels?: Partial<Record<ChannelName, boolean>>;
  workflows?: Record<string, Partial<Record<ChannelName, boolean>>>;
  quietHours?: { start: string; end: string } | null;
  schedule?: DeliverySchedule | null;
}

/** The flags a change touched, as an update names them: a workflow's flag (or whole entry) set to null follows the global flag again. */
export interface PreferenceChange {
  channels?: Partial<Record<ChannelName, boolean>>;
  workflows?: Record<string, Partial<Record<ChannelName, boolean | null>> | null>;
  quietHours?: SubscriberPreferences["quietHours"];
  schedule?: SubscriberPreferences["schedule"];
}
