import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, messageDetail } from "../e2e/helpers";
import { api } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

/**
 * A recipient's links are sealed only for what shows them (recipients-state.ts): a template or
 * layout that names `unsubscribe_url` or `preferences_url`, or an email's List-Unsubscribe header.
 * These are the cases without the header, where the mention alone must seal them.
 */
const linksIn = (text: string) => [...text.matchAll(/https?:\/\/[^\s"<]+\/[pu]\/[^\s"<]+/g)].map((m) => m[0]);
const opens = async (url: string) => (await SELF.fetch(`http://clarion.test${new URL(url).pathname}`)).status;

async function sendOne(key: string, workflow: Record<string, unknown>) {
  await createWorkflow(key, workflow);
  const subscriberId = unique("links");
  const transactionId = await triggerDelivered(key, {
    workflow: workflow.key,
    to: { subscriberId, email: "ada@example.com", phone: "+15555550100" },
  });
  const [message] = await deliveredMessages(key, transactionId, 1);
  expect(message!.status).toBe("sent");
  return (await messageDetail(key, message!.id)).content as Record<string, string>;
}

describe("links in templates", () => {
  it("seals the preference link an SMS names", async () => {
    const { key } = await createSandboxEnvironment();
    const content = await sendOne(key, {
      key: unique("sms-links").toLowerCase(),
      steps: [{ id: "text", type: "sms", template: { body: "Manage alerts: {{ preferences_url }}" } }],
    });
    const [link] = linksIn(content.body!);
    expect(link).toMatch(/\/p\//);
    expect(await opens(link!)).toBe(200);
  });

  it("seals the preference link a critical email's layout names (no List-Unsubscribe)", async () => {
    const { key } = await createSandboxEnvironment();
    const layout = unique("frame").toLowerCase();
    const created = await api(key, "POST", "/v1/layouts", {
      key: layout,
      name: "Frame",
      html: '<main>{{ content }}</main><footer><a href="{{ preferences_url }}">Settings</a></footer>',
    });
    expect(created.status).toBe(201);
    const content = await sendOne(key, {
      key: unique("critical-links").toLowerCase(),
      critical: true,
      steps: [{ id: "mail", type: "email", layout, template: { subject: "Your code", html: "<p>123456</p>" } }],
    });
    const [link] = linksIn(content.html!);
    expect(link).toMatch(/\/p\//);
    expect(await opens(link!)).toBe(200);
  });

  it("leaves a template that names no link as it was", async () => {
    const { key } = await createSandboxEnvironment();
    const content = await sendOne(key, {
      key: unique("plain").toLowerCase(),
      steps: [{ id: "text", type: "sms", template: { body: "Your order shipped." } }],
    });
    expect(content.body).toBe("Your order shipped.");
  });
});
