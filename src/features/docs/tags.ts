// The order /docs lists the API in: what a user does first (send a notification, to subscribers,
// with a workflow), then what they look at and set up, then the rest; provider webhooks last,
// since only providers call them. Scalar follows the document's `tags` order.
export const API_TAGS = [
  {
    name: "Triggers",
    description: "Send notifications: trigger a workflow for subscribers, a topic or everyone; cancel; follow a trigger.",
  },
  { name: "Subscribers", description: "The people you notify: profiles, channel addresses, preferences, erasure." },
  { name: "Workflows", description: "What a trigger runs: steps, conditions, templates; preview before saving." },
  { name: "Layouts", description: "Email frames around a step's content (`{{ content }}`), versioned; one default per environment." },
  { name: "Partials", description: 'Reusable blocks of Liquid rendered with `{% render "key" %}`, versioned.' },
  { name: "Brand", description: "The brand kit every template reads as `{{ brand.* }}` and the hosted pages show; versioned." },
  {
    name: "Translations",
    description: 'Texts per locale that templates read with `{{ "key" | t }}`; the default locale, what is missing or outdated; versioned.',
  },
  {
    name: "Proposals",
    description:
      "Changes to workflows, layouts, partials and translations that wait for a person: checked, diffed and previewed when proposed, applied or rejected later.",
  },
  {
    name: "Tenants",
    description:
      "Your customers' organisations: their brand over yours, their default preferences, and triggers, messages and feeds scoped to them.",
  },
  { name: "In-app", description: "Each subscriber's in-app notifications (what their Inbox shows) and the Inbox settings." },
  { name: "Topics", description: "Named groups of subscribers to trigger at once." },
  { name: "Messages", description: "What each step produced for each recipient, its status and timeline; statistics; sandbox captures." },
  {
    name: "Analytics",
    description:
      "Figures over time from rollups kept with each message change: overview and rates, funnels per workflow and step, providers compared, fatigue, grouped errors; CSV and NDJSON exports.",
  },
  { name: "Integrations", description: "Provider accounts per channel, in failover order; the providers and their credentials." },
  { name: "Variables", description: "Environment variables for templates (`{{ vars.<key> }}`), secret ones never shown again." },
  { name: "Suppressions", description: "Addresses that no step sends to: bounces, complaints, unsubscribes." },
  {
    name: "Event webhooks",
    description:
      "Your endpoints that Clarion POSTs events to (Standard Webhooks): messages, triggers, subscribers, suppressions; the event log and delivery attempts.",
  },
  {
    name: "Audit log",
    description: "Every change to configuration, who made it and when, with what it was before and after (secrets masked).",
  },
  {
    name: "Admin",
    description: "Environments and API keys, promotion between environments, the audit log of all; answers only to the admin credential.",
  },
  { name: "Dashboard", description: "The dashboard's session." },
  { name: "Metrics", description: "The deployment's figures for Prometheus, behind their own token (`METRICS_TOKEN`)." },
  { name: "Webhooks", description: "Providers' delivery reports. Called by providers, not by you." },
] as const;
