// The subscriber timeline's vocabulary, with no imports: the schema, the API and the dashboard read it from here.

/** What a stored activity row records. */
export const STORED_ACTIVITY_TYPES = ["created", "updated", "preferences_changed"] as const;

/** What a timeline entry shows: the stored rows, and `suppressed` read from the suppression list (never stored twice). */
export const ACTIVITY_TYPES = [...STORED_ACTIVITY_TYPES, "suppressed"] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/**
 * Who changed a subscriber's preferences: the RFC 8058 one-click POST, the hosted page, the team's backend,
 * or the subscriber in the team's own app (the Inbox's preference routes).
 */
export const PREFERENCE_CHANGE_REASONS = ["one_click", "preference_page", "api", "inbox"] as const;
export type PreferenceChangeReason = (typeof PREFERENCE_CHANGE_REASONS)[number];
