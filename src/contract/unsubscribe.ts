/**
 * What a one-click unsubscribe from a workflow's emails turns off: `workflow` its emails,
 * `email` all email, `none` nothing (no `List-Unsubscribe` header, an empty `{{ unsubscribe_url }}`).
 */
export const UNSUBSCRIBE_SCOPES = ["workflow", "email", "none"] as const;
export type UnsubscribeScope = (typeof UNSUBSCRIBE_SCOPES)[number];
