import type { TemplateContext } from "../../src/engine/content";

/** A template context with sample data; `overrides` replace whole sections. */
export const sampleContext = (overrides: Partial<TemplateContext> = {}): TemplateContext => ({
  payload: {
    orderId: "A-1001",
    total: 120,
    totalText: "99.5",
    status: "shipped",
    tags: ["vip", "eu", 3],
    items: [
      { sku: "SKU-1", qty: 2 },
      { sku: "SKU-2", qty: 1 },
    ],
    note: "",
    none: null,
    nested: {},
    list: [],
    shippedAt: "2025-06-01T12:00:00Z",
    createdMs: Date.UTC(2025, 5, 1, 11),
    html: "<b>bold</b> & co",
  },
  subscriber: { subscriberId: "sub-1", email: "ada@example.com", firstName: "Ada", locale: "de-CH", data: { plan: "pro" } },
  actor: { subscriberId: "actor-1", firstName: "Grace" },
  vars: { BRAND: "Clarion", SUPPORT: "help@clarion.dev" },
  workflow: { key: "order-shipped", name: "Order shipped" },
  step: { id: "email-1", type: "email" },
  steps: { "sms-1": { status: "sent", count: 2 }, "push-1": { status: "skipped" } },
  ...overrides,
});
