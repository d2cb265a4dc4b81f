import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { ledgerOf, tickLedger } from "../ledger";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { byStep, createWorkflow, eventually, messageDetail, settledMessages, trigger } from "./helpers";

const waits = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const person = () => ({ subscriberId: unique("p"), email: "p@example.com" });
const frame = (key: string, html: string, isDefault = false) => ({ key, name: key, html, isDefault });

describe("email steps and layouts", () => {
  it("wraps in the named layout, the default when none is named, and none for layout: null", async () => {
    const { key } = await createSandboxEnvironment();
    expect((await api(key, "POST", "/v1/layouts", frame("plain", "<i>{{ content }}</i>", true))).status).toBe(201);
    expect((await api(key, "POST", "/v1/layouts", frame("brand", "<b>{{ content }}</b>"))).status).toBe(201);
    expect((await api(key, "POST", "/v1/partials", { key: "sig", name: "Sig", content: "-- {{ who }}", type: "html" })).status).toBe(201);
    const html = '<p>Hi</p>{% render "sig", who: "Acme" %}';
    await createWorkflow(key, {
      key: "framed",
      name: "Framed",
      steps: [
        { id: "named", type: "email", layout: "brand", template: { subject: "a", html } },
        { id: "default", type: "email", template: { subject: "b", html } },
        { id: "none", type: "email", layout: null, template: { subject: "c", html } },
      ],
    });
    const transactionId = await trigger(key, { workflow: "framed", to: person() });
    const messages = await settledMessages(key, transactionId, 3);
    const htmlOf = async (step: string) => ((await messageDetail(key, byStep(messages, step).id)).content as { html: string }).html;
    expect(await htmlOf("named")).toBe("<b><p>Hi</p>-- Acme</b>");
    expect(await htmlOf("default")).toBe("<i><p>Hi</p>-- Acme</i>");
    expect(await htmlOf("none")).toBe("<p>Hi</p>-- Acme");
    // Each message names the layout version it was wrapped in (none: null).
    expect(Object.fromEntries(messages.map((m) => [m.stepId, m.layoutVersion]))).toEqual({ named: 1, default: 1, none: null });
  });

  it("renders a delayed email with the layout and partials of when it was accepted", async () => {
    const { id, key } = await createSandboxEnvironment();
    await api(key, "POST", "/v1/layouts", frame("main", "<old>{{ content }}</old>", true));
    await api(key, "POST", "/v1/partials", { key: "foot", name: "Foot", content: "old foot", type: "html" });
    await createWorkflow(key, {
      key: "later",
      name: "Later",
      steps: [
        { id: "wait", type: "delay", for: "PT10S" },
        { id: "mail", type: "email", template: { subject: "s", html: '<p>x</p>{% render "foot" %}' } },
      ],
    });
    const transactionId = await trigger(key, { workflow: "later", to: person() });
    await eventually(async () => (await waits(id, transactionId)).length === 1);

    expect((await api(key, "PUT", "/v1/layouts/main", frame("main", "<new>{{ content }}</new>", true))).status).toBe(200);
    expect((await api(key, "PUT", "/v1/partials/foot", { key: "foot", name: "Foot", content: "new foot", type: "html" })).status).toBe(200);
    await tickLedger(id, transactionId, Math.max(...(await waits(id, transactionId))));

    const [mail] = await settledMessages(key, transactionId, 1);
    expect(await messageDetail(key, mail!.id)).toMatchObject({ layoutVersion: 1, content: { html: "<old><p>x</p>old foot</old>" } });

    // A trigger accepted after the edit renders the new versions.
    const later = await trigger(key, { workflow: "later", to: person() });
    await eventually(async () => (await waits(id, later)).length === 1);
    await tickLedger(id, later, Math.max(...(await waits(id, later))));
    const [next] = await settledMessages(key, later, 1);
    expect(await messageDetail(key, next!.id)).toMatchObject({ layoutVersion: 2, content: { html: "<new><p>x</p>new foot</new>" } });
  });
});
