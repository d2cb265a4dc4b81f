// The Inbox settings' vocabulary, with no imports: the schema, the API and the dashboard read it from here.

/**
 * What `POST /novu/v1/inbox/session` may write of the profile a browser sends: `create_only` makes a
 * missing subscriber from it and never changes an existing one; `always` also updates an existing
 * subscriber's fields (a signed-in end user can then set their own email, phone, data, locale, time zone).
 */
export const SESSION_PROFILE_WRITES = ["create_only", "always"] as const;
export type SessionProfileWrites = (typeof SESSION_PROFILE_WRITES)[number];
