import { describe, expect, it } from "vitest";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { byStep, createWorkflow, messageDetail, settledMessages, trigger, eventually } from "./helpers";

const sandboxCaptures = async (key: string, messageId: string) =>
  (
    await api<{ data: { channel: string; to: string; content: Record<string, unknown> }[] }>(
      key,
      "GET",
      `/v1/sandbox/messages?messageId=${messageId}`,
    )
  ).body.data;

describe("delivery through the Queue consumer", () => {
  it("runs two conditional steps and records each message's full timeline", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "order-shipped",
      steps: [
        {
          id: "mail",
          type: "email",
          template: { subject: "Order {{ payload.orderId }} shipped", html: "<p>Hi {{ subscriber.firstName }}</p>" },
        },
        {
          id: "text",
          type: "sms",
          if: {
            all: [
              { field: "payload.total", op: "gte", value: 100 },
              { field: "steps.mail.status", op: "eq", value: "sent" },
            ],
          },
          template: { body: "Your order {{ payload.orderId }} is on its way" },
        },
      ],
    });
    const subscriberId = unique("sub");
    const transactionId = await trigger(key, {
      workflow: "order-shipped",
      to: { subscriberId, email: "ada@example.com", phone: "+41791234567", firstName: "Ada" },
      payload: { orderId: "A-1", total: 120 },
    });
    const messages = await settledMessages(key, transactionId, 2);
    const mail = byStep(messages, "mail");
    const text = byStep(messages, "text");
    expect(mail).toMatchObject({
      status: "sent",
      channel: "email",
      provider: "sandbox-email",
      to: "ada@example.com",
      subject: "Order A-1 shipped",
      attempts: 1,
    });
    expect(text).toMatchObject({ status: "sent", channel: "sms", to: "+41791234567" });
    const detail = await messageDetail(key, mail.id);
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
    expect(detail.content).toMatchObject({ html: "<p>Hi Ada</p>" });
    const [capture] = await sandboxCaptures(key, text.id);
    expect(capture).toMatchObject({ channel: "sms", to: "+41791234567", content: { body: "Your order A-1 is on its way" } });

    const status = await eventually(async () => {
      const res = await api<{ status: string; messages: { total: number; byStatus: Record<string, number> } }>(
        key,
        "GET",
        `/v1/trigger/${transactionId}`,
      );
      return res.body.status === "completed" ? res.body : null;
    });
    expect(status.messages).toEqual({ total: 2, byStatus: { sent: 2 } });
  });

  it("records a step whose condition is false as skipped with reason condition", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "big-orders",
      steps: [
        {
          id: "mail",
          type: "email",
          if: { any: [{ field: "payload.total", op: "gt", value: 1000 }, { not: { field: "payload.vip", op: "not_exists" } }] },
          template: { subject: "Big", text: "Hello" },
        },
        {
          id: "after",
          type: "sms",
          if: { field: "steps.mail.status", op: "eq", value: "skipped" },
          template: { body: "mail was skipped" },
        },
      ],
    });
    const transactionId = await trigger(key, {
      workflow: "big-orders",
      to: { subscriberId: unique("s"), email: "a@example.com", phone: "+41791234567" },
      payload: { total: 5 },
    });
    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "mail").status).toBe("skipped");
    expect(byStep(messages, "after").status).toBe("sent");
    const detail = await messageDetail(key, byStep(messages, "mail").id);
    expect(detail.events).toEqual([
      expect.objectContaining({ status: "skipped", detail: expect.objectContaining({ reason: "condition" }) }),
    ]);
  });

  it("renders Liquid with vars, subscriber and actor, escaping HTML output but not the subject", async () => {
    const { key } = await createSandboxEnvironment();
    await api(key, "POST", "/v1/variables", { key: "brand", value: "Acme & Co" });
    await createWorkflow(key, {
      key: "comment",
      steps: [
        {
          id: "mail",
          type: "email",
          template: {
            subject: "{{ actor.firstName }} commented on {{ vars.brand }}",
            html: "<p>{{ payload.comment }}</p><p>{{ payload.comment | raw }}</p>",
            text: "{{ subscriber.firstName | upcase }}",
          },
        },
      ],
    });
    const transactionId = await trigger(key, {
      workflow: "comment",
      to: { subscriberId: unique("s"), email: "b@example.com", firstName: "Bo" },
      actor: { subscriberId: unique("actor"), firstName: "Cy" },
      payload: { comment: "<b>hi</b>" },
    });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message!.subject).toBe("Cy commented on Acme & Co");
    const detail = await messageDetail(key, message!.id);
    expect(detail.content).toMatchObject({ html: "<p>&lt;b&gt;hi&lt;/b&gt;</p><p><b>hi</b></p>", text: "BO" });
  });

  it("fails a message with a template error and still delivers the other steps", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "broken",
      steps: [
        // Parses (so it saves) but fails when rendered: the loop passes the render's limits.
        { id: "bad", type: "email", template: { subject: "{% for i in (1..100000000) %}{% endfor %}", text: "Hello" } },
        { id: "good", type: "sms", template: { body: "fine" } },
      ],
    });
    const transactionId = await trigger(key, {
      workflow: "broken",
      to: { subscriberId: unique("s"), email: "c@example.com", phone: "+41791234567" },
    });
    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "bad")).toMatchObject({ status: "failed", error: { code: "template_error" } });
    expect(byStep(messages, "bad").error?.message).toMatch(/limit exceeded/);
    expect(byStep(messages, "good").status).toBe("sent");
  });

  it("skips channels without an address as missing_address", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "everywhere",
      steps: [
        { id: "e", type: "email", template: { subject: "s", text: "Hello" } },
        { id: "p", type: "push", template: { title: "t", body: "b" } },
        { id: "c", type: "chat", template: { text: "c" } },
        { id: "s", type: "sms", template: { body: "s" } },
      ],
    });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, channels: { push: [{ provider: "fcm", token: "tok-1" }] } });
    const transactionId = await trigger(key, { workflow: "everywhere", to: subscriberId });
    const messages = await settledMessages(key, transactionId, 4);
    expect(Object.fromEntries(messages.map((m) => [m.stepId, m.status]))).toEqual({ e: "skipped", p: "sent", c: "skipped", s: "skipped" });
    const detail = await messageDetail(key, byStep(messages, "e").id);
    expect(detail.events[0]?.detail).toMatchObject({ reason: "missing_address" });
  });

  it("skips every message to an unknown subscriberId as subscriber_not_found, steps after a delay too, and still reaches the others", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "to-a-stranger",
      steps: [
        { id: "e", type: "email", template: { subject: "s", text: "Hello" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "s", type: "sms", template: { body: "s" } },
      ],
    });
    const [stranger, known] = [unique("nobody"), unique("k")];
    await api(key, "POST", "/sub", { subscriberId: known, email: "k@example.com" });
    const transactionId = await trigger(key, { workflow: "to-a-stranger", to: [stranger, known] });
    const messages = await settledMessages(key, transactionId, 3);
    expect(
      messages
        .filter((m) => m.subscriberId === stranger)
        .map((m) => [m.stepId, m.status])
        .sort(),
    ).toEqual([
      ["e", "skipped"],
      ["s", "skipped"],
    ]);
    expect(byStep(messages, "e", known).status).toBe("sent");
    for (const stepId of ["e", "s"]) {
      const detail = await messageDetail(key, byStep(messages, stepId, stranger).id);
      expect(detail.events.at(-1)?.detail).toMatchObject({ reason: "subscriber_not_found", message: expect.stringContaining(stranger) });
    }
    // The known subscriber's sms waits on the delay: nothing of this test stays parked.
    await api(key, "DELETE", "/v1/trigger", { transactionId });
  });

  it("honours preferences, except in critical workflows", async () => {
    const { key } = await createSandboxEnvironment();
    const steps = [
      { id: "mail", type: "email", template: { subject: "s", text: "Hello" } },
      { id: "text", type: "sms", template: { body: "b" } },
    ];
    await createWorkflow(key, { key: "digest-news", steps });
    await createWorkflow(key, { key: "security-alert", critical: true, steps });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "d@example.com", phone: "+41791234567" });
    const put = await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, {
      channels: { email: false },
      workflows: { "digest-news": { sms: false } },
    });
    expect(put.status).toBe(200);

    const normal = await settledMessages(key, await trigger(key, { workflow: "digest-news", to: subscriberId }), 2);
    expect(normal.map((m) => m.status)).toEqual(["skipped", "skipped"]);
    const detail = await messageDetail(key, byStep(normal, "mail").id);
    expect(detail.events[0]?.detail).toMatchObject({ reason: "preference" });

    const critical = await settledMessages(key, await trigger(key, { workflow: "security-alert", to: subscriberId }), 2);
    expect(critical.map((m) => m.status)).toEqual(["sent", "sent"]);
  });

  it("applies trigger overrides on top of the rendered content", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "ov", steps: [{ id: "mail", type: "email", template: { subject: "Default", text: "body" } }] });
    const transactionId = await trigger(key, {
      workflow: "ov",
      to: { subscriberId: unique("s"), email: "e@example.com" },
      overrides: { email: { subject: "Overridden" }, "sandbox-email": { tags: ["x"] } },
    });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message!.subject).toBe("Overridden");
    const [capture] = await sandboxCaptures(key, message!.id);
    expect(capture!.content).toMatchObject({ subject: "Overridden", text: "body", tags: ["x"] });
  });

  it("delivers to every recipient of a trigger with more recipients than one job carries", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "many",
      steps: [{ id: "mail", type: "email", template: { subject: "hi {{ subscriber.subscriberId }}", text: "Hello" } }],
    });
    const to = Array.from({ length: 100 }, (_, i) => ({ subscriberId: unique(`m${i}`), email: `m${i}@example.com` }));
    const transactionId = await trigger(key, { workflow: "many", to });
    const messages = await settledMessages(key, transactionId, 100, 30_000);
    expect(new Set(messages.map((m) => m.subscriberId)).size).toBe(100);
    expect(messages.every((m) => m.status === "sent")).toBe(true);
  });
});
