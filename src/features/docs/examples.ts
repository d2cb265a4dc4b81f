// One realistic request body per operation, shown by /docs and used by its "Test Request". Kept
// as OpenAPI media examples (not schema examples) so a shared schema such as SubscriberInput can
// read differently under /sub and inside a trigger; a test checks every JSON body has one.

const workflow = {
  key: "order-shipped",
  name: "Order shipped",
  description: "Tells the customer their order is on its way.",
  active: true,
  tags: ["orders"],
  payloadSchema: { type: "object", required: ["orderId"], properties: { orderId: { type: "string" } } },
  steps: [
    {
      id: "email",
      type: "email",
      template: {
        subject: "Order {{ payload.orderId }} has shipped",
        html: "<p>Hi {{ subscriber.firstName }}, your order is on its way.</p>",
      },
    },
    { id: "wait", type: "delay", for: "PT1H" },
    {
      id: "sms",
      type: "sms",
      if: { field: "steps.email.status", op: "ne", value: "opened" },
      template: { body: "Order {{ payload.orderId }} has shipped." },
    },
  ],
};

const subscriber = {
  subscriberId: "user-42",
  email: "ada@example.com",
  phone: "+41791234567",
  firstName: "Ada",
  lastName: "Lovelace",
  locale: "en-GB",
  timezone: "Europe/London",
  data: { plan: "pro" },
};

const trigger = {
  workflow: "order-shipped",
  to: "user-42",
  payload: { orderId: "A-1001" },
  transactionId: "order-A-1001-shipped",
};

/** Keyed by `METHOD path` as in /openapi.json. */
export const REQUEST_EXAMPLES: Record<string, unknown> = {
  "POST /v1/trigger": trigger,
  "POST /v1/trigger/bulk": {
    events: [
      trigger,
      { workflow: "order-shipped", to: { subscriberId: "user-43", email: "grace@example.com" }, payload: { orderId: "A-1002" } },
    ],
  },
  "POST /v1/trigger/broadcast": { workflow: "order-shipped", payload: { orderId: "A-1001" }, transactionId: "order-A-1001-everyone" },
  "POST /sub": subscriber,
  "POST /v1/subscribers": subscriber,
  "POST /sub/bulk": { subscribers: [subscriber, { subscriberId: "user-43", email: "grace@example.com", firstName: "Grace" }] },
  "POST /v1/workflows": workflow,
  "PUT /v1/workflows/{key}": workflow,
  "POST /v1/workflows/{key}/test": { to: "user-42", payload: { orderId: "TEST-1" } },
  "POST /v1/workflows/{key}/preview": {
    payload: { orderId: "A-1001" },
    subscriber: { firstName: "Ada", email: "ada@example.com", locale: "en-GB" },
    steps: { email: { status: "sent" } },
  },
  "POST /v1/workflows/preview": {
    workflow: { steps: workflow.steps },
    payload: { orderId: "A-1001" },
    subscriber: { firstName: "Ada", email: "ada@example.com", locale: "en-GB" },
  },
  "POST /v1/variables": { key: "SUPPORT_EMAIL", value: "support@example.com", secret: false },
  "PUT /v1/variables/{key}": { value: "help@example.com" },
  "PUT /v1/subscribers/{subscriberId}/preferences": {
    channels: { sms: false },
    workflows: { "order-shipped": { email: true, push: false } },
    quietHours: { start: "22:00", end: "07:00" },
  },
  "PATCH /v1/preference-links/settings": { brandName: "Acme", logoUrl: "https://acme.dev/logo.png", accentColor: "#0a7d32" },
  "POST /v1/integrations": {
    provider: "resend",
    name: "Resend (production)",
    primary: true,
    credentials: { apiKey: "re_123456789", from: "Acme <hello@acme.dev>", webhookSecret: "whsec_abc123" },
  },
  "PUT /v1/integrations/{id}": { active: true, priority: 10, settings: { timeoutMs: 5000, maxAttempts: 3 } },
  "POST /v1/topics": { key: "product-news", name: "Product news" },
  "PUT /v1/topics/{key}": { name: "Product news (monthly)" },
  "POST /v1/topics/{key}/subscribers": { subscriberIds: ["user-42", "user-43"] },
  "DELETE /v1/topics/{key}/subscribers": { subscriberIds: ["user-43"] },
  "POST /v1/webhook-endpoints": {
    url: "https://crm.example.com/clarion/events",
    events: ["message.bounced", "message.failed", "subscriber.deleted"],
    description: "CRM: mark bounced addresses",
  },
  "PATCH /v1/webhook-endpoints/{id}": { enabled: true, events: ["message.bounced", "message.failed"] },
  "POST /v1/webhook-endpoints/{id}/rotate-secret": { overlapHours: 24 },
  "POST /v1/webhook-endpoints/{id}/replay": { since: "2026-11-24T00:00:00.000Z", onlyFailed: true },
};

interface Operation {
  requestBody?: { content?: Record<string, { example?: unknown }> };
}

/** Sets each operation's JSON request example from `REQUEST_EXAMPLES`, leaving ones the schemas give alone. */
export function addRequestExamples(document: { paths?: object }): void {
  for (const [path, item] of Object.entries(document.paths ?? {}) as [string, Record<string, Operation | undefined>][]) {
    for (const [method, operation] of Object.entries(item)) {
      const media = operation?.requestBody?.content?.["application/json"];
      const example = REQUEST_EXAMPLES[`${method.toUpperCase()} ${path}`];
      if (media && example !== undefined && media.example === undefined) media.example = example;
    }
  }
}
