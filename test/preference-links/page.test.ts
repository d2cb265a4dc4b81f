import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow } from "../e2e/helpers";
import type { EventList } from "../../src/features/events/schemas";
import type { SubscriberActivityPage } from "../../src/features/subscribers/activity-schemas";
import { api } from "../request";

const MAIL = { id: "mail", type: "email", template: { subject: "S", text: "T" } };
const TEXT = { id: "text", type: "sms", template: { body: "B" } };

/** An environment with two choosable workflows and a critical one, a subscriber, and its page link. */
async function setUp() {
  const { key } = await createSandboxEnvironment();
  const news = unique("news").toLowerCase();
  const digest = unique("digest").toLowerCase();
  const reset = unique("reset").toLowerCase();
  await createWorkflow(key, { key: news, name: "Product <b>news</b>", description: "What we ship & why", steps: [MAIL] });
  await createWorkflow(key, { key: digest, name: "Weekly digest", steps: [MAIL, TEXT] });
  await createWorkflow(key, { key: reset, name: "Password reset", critical: true, steps: [MAIL] });
  const subscriberId = unique("s");
  await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com", phone: "+41791234567" });
  const link = await api<{ url: string }>(key, "POST", `/v1/subscribers/${subscriberId}/preference-link`);
  return { key, subscriberId, news, digest, reset, path: new URL(link.body.url).pathname };
}

const get = (path: string) => SELF.fetch(`http://clarion.test${path}`);
const post = (path: string, fields: [string, string][]) =>
  SELF.fetch(`http://clarion.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
const nonceOf = (html: string) => /name="nonce" value="([^"]+)"/.exec(html)![1]!;
const checkedBoxes = (html: string) => [...html.matchAll(/name="([^"]+)" value="on" checked/g)].map((m) => m[1]);

describe("GET /p/{token}", () => {
  it("lists the global switches and each non-critical workflow × its channels, escaped, with strict headers", async () => {
    const { path, news, digest, reset } = await setUp();
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'; style-src 'nonce-[^']+'/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html).not.toContain("<script");
    expect(html).toContain("<legend>Product &lt;b&gt;news&lt;/b&gt;</legend>");
    expect(html).toContain("What we ship &amp; why");
    expect(html).not.toContain(reset);
    expect(checkedBoxes(html).sort()).toEqual(
      [
        "channel:email",
        "channel:sms",
        "channel:push",
        "channel:chat",
        "channel:in_app",
        `workflow:${news}:email`,
        `workflow:${digest}:email`,
        `workflow:${digest}:sms`,
      ].sort(),
    );
  });

  it("lists a channel a workflow sends on only inside a branch path", async () => {
    const { key, path } = await setUp();
    const branched = unique("branched").toLowerCase();
    const branch = {
      id: "route",
      type: "branch",
      paths: [{ id: "vip", if: { field: "payload.vip", op: "eq", value: true }, steps: [TEXT] }],
    };
    await createWorkflow(key, { key: branched, name: "Branched", steps: [branch] });
    const boxes = checkedBoxes(await (await get(path)).text());
    expect(boxes).toContain(`workflow:${branched}:sms`);
    expect(boxes.filter((b) => b?.startsWith(`workflow:${branched}:`))).toEqual([`workflow:${branched}:sms`]);
  });

  it("sends its style block unescaped, so the fonts and colours apply", async () => {
    const { path } = await setUp();
    const html = await (await get(path)).text();
    const style = /<style nonce="[^"]+">([^<]*)<\/style>/.exec(html)?.[1] ?? "";
    expect(style).toContain('font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif');
    expect(style).not.toContain("&quot;");
  });

  it("shows the environment's branding", async () => {
    const { key, path } = await setUp();
    await api(key, "PATCH", "/v1/preference-links/settings", {
      brandName: "Acme",
      logoUrl: "https://acme.dev/l.png",
      accentColor: "#0a7d32",
    });
    const html = await (await get(path)).text();
    expect(html).toContain('<img class="logo" src="https://acme.dev/l.png" alt="Acme">');
    expect(html).toContain("#0a7d32");
  });
});

describe("POST /p/{token}", () => {
  it("round-trips every switch through the preferences API's merge", async () => {
    const { key, subscriberId, path, news, digest } = await setUp();
    const nonce = nonceOf(await (await get(path)).text());
    // SMS off everywhere, news email off, digest SMS kept on against the global switch.
    const res = await post(path, [
      ["nonce", nonce],
      ["channel:email", "on"],
      ["channel:push", "on"],
      ["channel:chat", "on"],
      [`workflow:${digest}:email`, "on"],
      [`workflow:${digest}:sms`, "on"],
    ]);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Your choices are saved.");
    expect(checkedBoxes(html)).toEqual(
      expect.arrayContaining(["channel:email", "channel:push", "channel:chat", `workflow:${digest}:email`, `workflow:${digest}:sms`]),
    );
    expect(checkedBoxes(html)).toHaveLength(5);
    const prefs = await api<{ channels: Record<string, boolean>; workflows: Record<string, Record<string, boolean>> }>(
      key,
      "GET",
      `/v1/subscribers/${subscriberId}/preferences`,
    );
    expect(prefs.body.channels).toEqual({ email: true, sms: false, push: true, chat: true, in_app: false });
    expect(prefs.body.workflows[news]).toEqual({ email: false });
    expect(prefs.body.workflows[digest]).toEqual({ sms: true });

    // Everything back on: the overrides that agree with the global switches are dropped.
    const again = nonceOf(html);
    await post(path, [
      ["nonce", again],
      ...["email", "sms", "push", "chat", "in_app"].map((c): [string, string] => [`channel:${c}`, "on"]),
      [`workflow:${news}:email`, "on"],
      [`workflow:${digest}:email`, "on"],
      [`workflow:${digest}:sms`, "on"],
    ]);
    const back = await api<{ channels: Record<string, boolean>; workflows: Record<string, Record<string, boolean>> }>(
      key,
      "GET",
      `/v1/subscribers/${subscriberId}/preferences`,
    );
    expect(back.body.channels).toEqual({ email: true, sms: true, push: true, chat: true, in_app: true });
    expect(back.body.workflows[news]).toEqual({});
    expect(back.body.workflows[digest]).toEqual({});
  });

  it("records only what the save changed, with reason preference_page, and emits subscriber.updated with it", async () => {
    const { key, subscriberId, path, news, digest } = await setUp();
    const nonce = nonceOf(await (await get(path)).text());
    await post(path, [
      ["nonce", nonce],
      ["channel:email", "on"],
      ["channel:push", "on"],
      ["channel:chat", "on"],
      [`workflow:${digest}:email`, "on"],
      [`workflow:${digest}:sms`, "on"],
    ]);
    const changed = { channels: { sms: false, in_app: false }, workflows: { [news]: { email: false }, [digest]: { sms: true } } };
    const timeline = await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`);
    expect(timeline.body.data[0]).toMatchObject({ type: "preferences_changed", reason: "preference_page", preferences: changed });
    const events = await api<EventList>(key, "GET", "/v1/events?type=subscriber.updated");
    expect(events.body.data.map((e) => e.data)).toEqual([{ subscriberId, reason: "preference_page", preferences: changed }]);
  });

  it.each([
    ["no nonce", []],
    ["a forged nonce", [["nonce", `${Date.now()}.${"A".repeat(32)}`]]],
    ["an expired nonce", [["nonce", `1.${"A".repeat(32)}`]]],
  ] as [string, [string, string][]][])("changes nothing with %s (400)", async (_name, fields) => {
    const { key, subscriberId, path } = await setUp();
    const res = await post(path, fields);
    expect(res.status).toBe(400);
    const prefs = await api<{ channels: Record<string, boolean> }>(key, "GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(prefs.body.channels.email).toBe(true);
  });

  it("refuses a nonce rendered for another link", async () => {
    const a = await setUp();
    const b = await setUp();
    const nonce = nonceOf(await (await get(a.path)).text());
    expect((await post(b.path, [["nonce", nonce]])).status).toBe(400);
  });

  it("answers the neutral 404 page to a token edited by one character", async () => {
    const { path } = await setUp();
    const edited = path.slice(0, -1) + (path.endsWith("A") ? "B" : "A");
    const res = await get(edited);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Nothing to manage");
    expect((await post(edited, [])).status).toBe(404);
  });
});
