// A subscriber's stored opt-outs, as the engine decides by them and D1 keeps them (the schema
// types its JSON columns with these): no imports, so the engine stays apart from storage.

type ChannelName = "email" | "sms" | "push" | "chat" | "in_app";

/** Opt-outs: `false` turns a channel off globally or for one workflow; critical workflows ignore them. */
export interface SubscriberPreferences {
  channels?: Partial<Record<ChannelName, boolean>>;
  workflows?: Record<string, Partial<Record<ChannelName, boolean>>>;
  quietHours?: { start: string; end: string } | null;
}

/** The flags a change touched, as an update names them: a workflow's flag (or whole entry) set to null follows the global flag again. */
export interface PreferenceChange {
  channels?: Partial<Record<ChannelName, boolean>>;
  workflows?: Record<string, Partial<Record<ChannelName, boolean | null>> | null>;
  quietHours?: SubscriberPreferences["quietHours"];
}
