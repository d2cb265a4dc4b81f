import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { byStep, createWorkflow, messageDetail } from "../e2e/helpers";
import { createDb } from "../../src/db/client";
import { subscriberActivity } from "../../src/db/schema";
import type { EventList } from "../../src/features/events/schemas";
import type { SubscriberActivityPage } from "../../src/features/subscribers/activity-schemas";
import { api, expectProblem } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const STEPS = [
  {
    id: "mail",
    type: "email",
    template: {
      subject: "News",
      html: '<p>Hi</p><a href="{{ unsubscribe_url }}">Unsubscribe</a> <a href="{{ preferences_url }}">Preferences</a>',
    },
  },
];
const LINKS = /href="(http[^"]*\/u\/([^"]+))">Unsubscribe<\/a> <a href="(http[^"]*\/p\/[^"]+)"/;

const oneClick = (path: string, body = "List-Unsubscribe=One-Click") =>
  SELF.fetch(`http://clarion.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
const page = (path: string) => SELF.fetch(`http://clarion.test${path}`);

/** A sandbox environment, a subscriber, and the links of one email of `workflow` sent to it. */
async function mailed(workflow: Record<string, unknown> = {}) {
  const environment = await createSandboxEnvironment();
  const workflowKey = unique("news").toLowerCase();
  await createWorkflow(environment.key, { key: workflowKey, steps: STEPS, ...workflow });
  const subscriberId = unique("s");
  await api(environment.key, "POST", "/sub", { subscriberId, email: "ada@example.com" });
  const [message] = await deliveredMessages(
    environment.key,
    await triggerDelivered(environment.key, { workflow: workflowKey, to: subscriberId }),
    1,
  );
  const detail = await messageDetail(environment.key, message!.id);
  const html = String((detail.content as { html?: string }).html);
  const [, unsubscribeUrl, token, preferencesUrl] = LINKS.exec(html) ?? [];
  return { ...environment, workflowKey, subscriberId, html, unsubscribeUrl, token: token!, preferencesUrl };
}

const preferencesOf = async (key: string, subscriberId: string) =>
  (
    await api<{ channels: Record<string, boolean>; workflows: Record<string, Record<string, boolean>> }>(
      key,
      "GET",
      `/v1/subscribers/${subscriberId}/preferences`,
    )
  ).body;

describe("{{ unsubscribe_url }} and {{ preferences_url }}", () => {
  it("render as signed links on this deployment's public URL", async () => {
    const { unsubscribeUrl, preferencesUrl } = await mailed();
    expect(unsubscribeUrl).toMatch(/^http:\/\/127\.0\.0\.1:8787\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(preferencesUrl).toBe(unsubscribeUrl!.replace("/u/", "/p/"));
  });

  it("leave unsubscribe_url empty in a critical workflow", async () => {
    const { html } = await mailed({ critical: true });
    expect(html).toContain('<a href="">Unsubscribe</a>');
    expect(html).toMatch(/\/p\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/);
  });
});

describe("POST /u/{token} (RFC 8058 one-click)", () => {
  it("opts out of the workflow's email at once, and the next trigger skips it with reason preference", async () => {
    const { key, workflowKey, subscriberId, token } = await mailed();
    const res = await oneClick(`/u/${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await preferencesOf(key, subscriberId)).toMatchObject({
      channels: { email: true },
      workflows: { [workflowKey]: { email: false } },
    });

    const [next] = await deliveredMessages(key, await triggerDelivered(key, { workflow: workflowKey, to: subscriberId }), 1);
    expect(next!.status).toBe("skipped");
    const detail = await messageDetail(key, next!.id);
    expect(detail.events[0]?.detail).toMatchObject({ reason: "preference" });
  });

  it("turns off all email when the workflow's unsubscribe is `email`; a critical workflow still sends", async () => {
    const { key, subscriberId, token } = await mailed({ unsubscribe: "email" });
    expect((await oneClick(`/u/${token}`)).status).toBe(200);
    expect((await preferencesOf(key, subscriberId)).channels.email).toBe(false);

    const critical = unique("alert").toLowerCase();
    await createWorkflow(key, { key: critical, critical: true, steps: STEPS });
    const [sent] = await deliveredMessages(key, await triggerDelivered(key, { workflow: critical, to: subscriberId }), 1);
    expect(byStep([sent!], "mail").status).toBe("sent");
  });

  it("changes nothing without List-Unsubscribe=One-Click in a form body", async () => {
    const { key, subscriberId, token } = await mailed();
    for (const body of ["", "List-Unsubscribe=Later", "%%%", "List-Unsubscribe"]) {
      const res = await oneClick(`/u/${token}`, body);
      expect(res.status).toBe(400);
    }
    const json = await SELF.fetch(`http://clarion.test/u/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"List-Unsubscribe":"One-Click"}',
    });
    expect(json.status).toBe(400);
    expect((await preferencesOf(key, subscriberId)).workflows).toEqual({});
  });

  it("refuses a token edited by one character with the neutral 404 page, changing nothing", async () => {
    const { key, subscriberId, token } = await mailed();
    const last = token.at(-1) === "A" ? "B" : "A";
    const edited = [token.slice(0, -1) + last, `x${token.slice(1)}`, token.replace(".", "..")];
    for (const bad of edited) {
      const res = await oneClick(`/u/${bad}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Nothing to manage");
    }
    expect((await preferencesOf(key, subscriberId)).workflows).toEqual({});
  });

  it("does not let a token of environment A change environment B", async () => {
    const a = await mailed();
    const b = await mailed();
    // A's signature over a payload that names B's environment and subscriber.
    const [, macA] = a.token.split(".");
    const [payloadB] = b.token.split(".");
    const forged = await oneClick(`/u/${payloadB}.${macA}`);
    expect(forged.status).toBe(404);
    expect((await preferencesOf(b.key, b.subscriberId)).workflows).toEqual({});
  });
});

describe("GET /u/{token}", () => {
  it("changes nothing and shows one button posting the one-click form, and a link to the page", async () => {
    const { key, subscriberId, token } = await mailed();
    const res = await page(`/u/${token}`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain(`<form method="post" action="/u/${token}">`);
    expect(body).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click">');
    expect(body).toContain(`href="/p/${token}"`);
    expect(body).not.toContain("<script");
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect((await preferencesOf(key, subscriberId)).workflows).toEqual({});
  });
});

describe("POST /v1/subscribers/{subscriberId}/preference-link", () => {
  it("mints a page link and a one-click link that turns off all email", async () => {
    const { key } = await createSandboxEnvironment();
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "b@example.com" });
    const res = await api<{ url: string; unsubscribeUrl: string; expiresAt: null }>(
      key,
      "POST",
      `/v1/subscribers/${subscriberId}/preference-link`,
    );
    expect(res.status).toBe(200);
    expect(res.body.expiresAt).toBeNull();
    expect(res.body.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/p\//);
    const path = new URL(res.body.unsubscribeUrl).pathname;
    expect((await oneClick(path)).status).toBe(200);
    expect((await preferencesOf(key, subscriberId)).channels.email).toBe(false);
  });

  it("answers 404 subscriber_not_found for an unknown subscriber", async () => {
    const { key } = await createSandboxEnvironment();
    expectProblem(await api(key, "POST", `/v1/subscribers/${unique("nobody")}/preference-link`), 404, "subscriber_not_found");
  });
});

describe("a one-click opt-out on the subscriber's timeline", () => {
  it("is recorded with reason one_click and emitted as subscriber.updated with the changed preferences", async () => {
    const { key, workflowKey, subscriberId, token } = await mailed();
    expect((await oneClick(`/u/${token}`)).status).toBe(200);
    const changed = { workflows: { [workflowKey]: { email: false } } };
    const timeline = await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`);
    expect(timeline.body.data[0]).toMatchObject({ type: "preferences_changed", reason: "one_click", preferences: changed });
    const events = await api<EventList>(key, "GET", "/v1/events?type=subscriber.updated");
    expect(events.body.data.map((e) => e.data)).toEqual([{ subscriberId, reason: "one_click", preferences: changed }]);

    // A second click (mail providers retry) changes nothing and records nothing.
    expect((await oneClick(`/u/${token}`)).status).toBe(200);
    const after = await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`);
    expect(after.body.data.filter((e) => e.reason === "one_click")).toHaveLength(1);
  });

  it("is not written by GET /u/{token}", async () => {
    const { key, subscriberId, token } = await mailed();
    expect((await page(`/u/${token}`)).status).toBe(200);
    const timeline = await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`);
    expect(timeline.body.data.map((e) => e.type)).toEqual(["created"]);
  });
});

describe("POST /v1/preference-links/rotate-secret", () => {
  it("revokes every link minted before", async () => {
    const { key, token } = await mailed();
    expect((await page(`/u/${token}`)).status).toBe(200);
    const rotated = await api(key, "POST", "/v1/preference-links/rotate-secret");
    expect(rotated.status).toBe(200);
    expect((await page(`/u/${token}`)).status).toBe(404);
  });
});

describe("an erased subscriber's links", () => {
  it("show the neutral 404 page", async () => {
    const { key, subscriberId, token } = await mailed();
    const erased = await api(key, "DELETE", `/v1/subscribers/${subscriberId}`);
    expect(erased.status).toBeLessThan(300);
    const res = await page(`/u/${token}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Nothing to manage");
  });

  it("show the neutral 404 page after a one-click left a timeline, which erasure deletes", async () => {
    const { key, subscriberId, token, id } = await mailed();
    expect((await oneClick(`/u/${token}`)).status).toBe(200);
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBe(200);
    const rows = await createDb(env.DB).select().from(subscriberActivity).where(eq(subscriberActivity.environmentId, id));
    expect(rows).toEqual([]);
    for (const path of [`/u/${token}`, `/p/${token}`]) {
      const res = await page(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Nothing to manage");
    }
    expect((await oneClick(`/u/${token}`)).status).toBe(404);
    expectProblem(await api(key, "GET", `/v1/subscribers/${subscriberId}/activity`), 404, "subscriber_not_found");
  });
});

describe("/v1/preference-links/settings", () => {
  it("stores the page's branding; null clears a field", async () => {
    const { key } = await createSandboxEnvironment();
    const set = await api(key, "PATCH", "/v1/preference-links/settings", {
      brandName: "Acme",
      logoUrl: "https://acme.dev/logo.png",
      accentColor: "#0a7d32",
    });
    expect(set.body).toEqual({ brandName: "Acme", logoUrl: "https://acme.dev/logo.png", accentColor: "#0a7d32", translations: {} });
    await api(key, "PATCH", "/v1/preference-links/settings", { logoUrl: null });
    expect((await api(key, "GET", "/v1/preference-links/settings")).body).toEqual({
      brandName: "Acme",
      logoUrl: null,
      accentColor: "#0a7d32",
      translations: {},
    });
  });

  it.each([
    { accentColor: "red" },
    { accentColor: "#fff;}" },
    { logoUrl: "http://acme.dev/logo.png" },
    { logoUrl: "javascript:alert(1)" },
    { brandName: "" },
    { other: 1 },
  ])("refuses %j with 422", async (body) => {
    const { key } = await createSandboxEnvironment();
    expectProblem(await api(key, "PATCH", "/v1/preference-links/settings", body), 422, "validation_failed");
  });
});

describe("the workflow setting `unsubscribe`", () => {
  it("defaults to workflow, is none in a critical workflow, and refuses other values", async () => {
    const { key } = await createSandboxEnvironment();
    expect((await createWorkflow(key, { steps: STEPS })).unsubscribe).toBe("workflow");
    expect((await createWorkflow(key, { steps: STEPS, unsubscribe: "email" })).unsubscribe).toBe("email");
    expect((await createWorkflow(key, { steps: STEPS, critical: true, unsubscribe: "email" })).unsubscribe).toBe("none");
    const bad = await api(key, "POST", "/v1/workflows", { key: unique("wf").toLowerCase(), name: "W", steps: STEPS, unsubscribe: "all" });
    expectProblem(bad, 422, "validation_failed");
  });

  it("`none` leaves unsubscribe_url empty", async () => {
    const { html } = await mailed({ unsubscribe: "none" });
    expect(html).toContain('<a href="">Unsubscribe</a>');
  });
});
