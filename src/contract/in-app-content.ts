// What an in_app step renders to and the Inbox shows: the engine renders it, D1 stores it (the
// schema types its JSON column with it), the Inbox socket sends it.

export interface InAppRedirectContent {
  url: string;
  target?: string;
}
export interface InAppActionContent {
  label: string;
  redirect?: InAppRedirectContent;
}
export interface InAppContent {
  subject?: string;
  body: string;
  avatar?: string;
  primaryAction?: InAppActionContent;
  secondaryAction?: InAppActionContent;
  redirect?: InAppRedirectContent;
  data?: Record<string, unknown>;
}
