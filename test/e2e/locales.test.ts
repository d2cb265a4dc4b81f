import { describe, expect, it } from "vitest";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { createWorkflow, settledMessages, trigger } from "./helpers";

/** The `order-update` example of docs/concepts/workflows-and-steps.md, as written there. */
const ORDER_UPDATE_MAIL = {
  id: "mail",
  type: "email",
  template: { subject: "Order {{ payload.orderId }} shipped", html: "<p>Hi {{ subscriber.firstName }}</p>" },
  locales: { de: { subject: "Bestellung {{ payload.orderId }} versandt" } },
  tracking: { opens: true, clicks: true },
};

describe("locale variants", () => {
  it("send the base body with the variant's subject (docs order-update, de-CH subscriber, SendGrid)", async () => {
    const { id, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    await scenario.script([{ status: 202, headers: { "x-message-id": "sg-1" }, body: "" }]);
    await createIntegration(id, {
      provider: "sendgrid",
      channel: "email",
      credentials: { apiKey: "SG.test.key", from: "Acme <hi@acme.dev>" },
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    await createWorkflow(key, { key: "order-update", name: "Order update", steps: [ORDER_UPDATE_MAIL] });
    const subscriber = { subscriberId: unique("s"), email: "ada@example.ch", firstName: "Ada", locale: "de-CH" };
    const transactionId = await trigger(key, { workflow: "order-update", to: subscriber, payload: { orderId: "A-1" } });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "sent", provider: "sendgrid" });

    const [request] = await scenario.captured();
    const body = JSON.parse(request!.body) as { subject: string; content: { type: string; value: string }[] };
    expect(body.subject).toBe("Bestellung A-1 versandt");
    expect(body.content).toHaveLength(1);
    expect(body.content[0]!.type).toBe("text/html");
    // Open tracking appends its pixel to the base body.
    expect(body.content[0]!.value).toMatch(/^<p>Hi Ada<\/p>/);
  });
});
