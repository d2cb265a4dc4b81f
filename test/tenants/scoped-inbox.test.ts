// The scoped Inbox: a session started with Novu's `context` (and its `contextHash`) sees, counts and
// changes exactly that context's notifications, over REST and the socket; one without sees only
// notifications of no context.
import { describe, expect, it } from "vitest";
import { canonicalize, contextHash, contextKey } from "../../src/contract/inbox-context";
import { subscriberHash } from "../../src/features/in-app/settings-repository";
import { connect, type Frame } from "../in-app/socket-client";
import { createEnvironment, createWorkflow, unique } from "../factories";
import { triggerDelivered } from "../held-triggers";
import { api } from "../request";
import { inbox, type Session, settingsOf } from "../novu/inbox-client";

const BELL = { id: "bell", type: "in_app", template: { body: "{{ payload.n }}" } };

async function setUp() {
  const environment = await createEnvironment();
  const workflow = await createWorkflow(environment.key, { steps: [BELL] });
  const subscriberId = unique("sub");
  expect((await api(environment.key, "POST", "/sub", { subscriberId })).status).toBeLessThan(300);
  expect((await api(environment.key, "PATCH", "/v1/in-app/settings", { hmacRequired: true })).status).toBe(200);
  for (const id of ["a", "b"]) expect((await api(environment.key, "POST", "/v1/tenants", { id, name: id.toUpperCase() })).status).toBe(201);
  const settings = await settingsOf(environment.key);
  const send = (n: string, scope: Record<string, unknown> = {}) =>
    triggerDelivered(environment.key, { workflow: workflow.key, to: subscriberId, payload: { n }, ...scope });
  const start = async (context?: Record<string, unknown>, hash?: string) =>
    inbox<{ data: Session }>(null, "POST", "/session", {
      applicationIdentifier: settings.applicationIdentifier,
      subscriberHash: await subscriberHash(settings.hmacSecret, subscriberId),
      subscriber: { subscriberId },
      ...(context ? { context, contextHash: hash ?? (await contextHash(settings.hmacSecret, context as never)) } : {}),
    });
  const session = async (context?: Record<string, unknown>) => {
    const res = await start(context);
    expect(res.status).toBe(201);
    return res.body.data;
  };
  return { ...environment, subscriberId, settings, send, start, session };
}

type Listed = { data: { id: string; body: string }[] };
const bodies = async (token: string) => (await inbox<Listed>(token, "GET", "/notifications?limit=50")).body.data.map((n) => n.body).sort();
const unread = async (token: string) =>
  (await inbox<{ data: { count: number }[] }>(token, "GET", `/notifications/count?filters=${encodeURIComponent('[{"read":false}]')}`)).body
    .data[0]!.count;

describe("contextHash", () => {
  it("is hex HMAC-SHA256 of the context's canonical JSON, as Novu's API computes it (@tufjs/canonical-json)", async () => {
    const context = { tenant: { id: "a", data: { z: 1, a: 'q"\\', n: null } }, app: "x" };
    const canonical = '{"app":"x","tenant":{"data":{"a":"q\\"\\\\","n":null,"z":1},"id":"a"}}';
    expect(canonicalize(context)).toBe(canonical);
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("s3cret"), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const expected = [...new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(canonical)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(await contextHash("s3cret", context)).toBe(expected);
    // The feed key names each key's id only, in key order.
    expect(contextKey({ tenant: "a", app: "x" })).toBe('{"app":"x","tenant":"a"}');
    expect(contextKey({})).toBe("");
  });

  it("is required with a context where hmacRequired is on: a wrong or missing one is 401 context_hash_invalid", async () => {
    const s = await setUp();
    const wrong = await s.start({ tenant: "a" }, await contextHash(s.settings.hmacSecret, { tenant: "b" }));
    expect(wrong.status).toBe(401);
    expect((wrong.body as unknown as { code: string }).code).toBe("context_hash_invalid");
    const missing = await inbox<{ code: string }>(null, "POST", "/session", {
      applicationIdentifier: s.settings.applicationIdentifier,
      subscriberHash: await subscriberHash(s.settings.hmacSecret, s.subscriberId),
      subscriber: { subscriberId: s.subscriberId },
      context: { tenant: "a" },
    });
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe("context_hash_invalid");
    expect((await s.start({ tenant: "a" })).status).toBe(201);
  });

  it("is not asked for where hmacRequired is off", async () => {
    const s = await setUp();
    expect((await api(s.key, "PATCH", "/v1/in-app/settings", { hmacRequired: false })).status).toBe(200);
    const res = await inbox(null, "POST", "/session", {
      applicationIdentifier: s.settings.applicationIdentifier,
      subscriber: { subscriberId: s.subscriberId },
      context: { tenant: "a" },
    });
    expect(res.status).toBe(201);
  });

  it.each([
    ["a float in its data", { tenant: { id: "a", data: { score: 1.5 } } }],
    ["six keys", { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" }],
    ["an empty id", { tenant: "" }],
  ])("refuses a context with %s as bad input, never a 5xx", async (_name, context) => {
    const s = await setUp();
    const res = await s.start(context, "00");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe("a session with a context", () => {
  it("sees, counts and changes only its context's notifications; one without sees only those of none", async () => {
    const s = await setUp();
    await s.send("a1", { tenant: "a" });
    await s.send("a2", { context: { tenant: "a" } });
    await s.send("b1", { tenant: "b" });
    await s.send("a-eu", { tenant: "a", context: { region: "eu" } });
    await s.send("none");

    const a = await s.session({ tenant: "a" });
    const b = await s.session({ tenant: { id: "b", data: { plan: "pro" } } });
    const plain = await s.session();
    const eu = await s.session({ region: "eu", tenant: "a" });
    expect([a.totalUnreadCount, b.totalUnreadCount, plain.totalUnreadCount, eu.totalUnreadCount]).toEqual([2, 1, 1, 1]);
    expect(await bodies(a.token)).toEqual(["a1", "a2"]);
    expect(await bodies(b.token)).toEqual(["b1"]);
    expect(await bodies(plain.token)).toEqual(["none"]);
    expect(await bodies(eu.token)).toEqual(["a-eu"]);

    // Another context's notification is not there for this session's actions.
    const [bOne] = (await inbox<Listed>(b.token, "GET", "/notifications")).body.data;
    expect((await inbox(a.token, "PATCH", `/notifications/${bOne!.id}/read`)).status).toBe(404);
    expect((await inbox(a.token, "PATCH", `/notifications/${bOne!.id}/archive`)).status).toBe(404);
    expect((await inbox(a.token, "POST", `/notifications/${bOne!.id}/delete`)).status).toBe(404);
    expect(await unread(b.token)).toBe(1);

    // Mark all read and archive all change only the session's context.
    expect((await inbox(a.token, "POST", "/notifications/read", {})).status).toBe(204);
    expect([await unread(a.token), await unread(b.token), await unread(plain.token), await unread(eu.token)]).toEqual([0, 1, 1, 1]);
    expect((await inbox(plain.token, "POST", "/notifications/archive", {})).status).toBe(204);
    expect(await bodies(b.token)).toEqual(["b1"]);
    expect(await unread(b.token)).toBe(1);
    // Seen by ids never reaches beyond the context either.
    expect((await inbox(a.token, "POST", "/notifications/seen", { notificationIds: [bOne!.id] })).status).toBeLessThan(300);
    const [stillB] = (await inbox<{ data: { isSeen: boolean }[] }>(b.token, "GET", "/notifications")).body.data;
    expect(stillB!.isSeen).toBe(false);
  });

  it("gets realtime frames only on the sockets of the notification's context", async () => {
    const s = await setUp();
    const a = await connect((await s.session({ tenant: "a" })).token);
    const b = await connect((await s.session({ tenant: "b" })).token);
    const plain = await connect((await s.session()).token);

    await s.send("a1", { tenant: "a" });
    const received = (await a.next()) as Frame;
    expect(received.event).toBe("notification_received");
    expect((received.data.message as { content: string }).content).toBe("a1");
    expect(await a.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 1 } });
    expect(await a.next()).toMatchObject({ event: "unread_count_changed", data: { counts: { total: 1 } } });

    // The next frames of b and of the plain socket are their own notifications: a1 never reached them.
    await s.send("b1", { tenant: "b" });
    expect((((await b.next()) as Frame).data.message as { content: string }).content).toBe("b1");
    expect(await b.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 1 } });
    await s.send("none");
    expect((((await plain.next()) as Frame).data.message as { content: string }).content).toBe("none");
    expect(await plain.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 1 } });

    // A change in b's session pushes b's counts to b only: a's next frame is its own next notification.
    const bToken = (await s.session({ tenant: "b" })).token;
    expect((await inbox(bToken, "POST", "/notifications/read", {})).status).toBe(204);
    expect(await b.next()).toMatchObject({ event: "unread_count_changed", data: { counts: { total: 1 } } });
    expect(await b.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 0 } });
    expect(await b.next()).toMatchObject({ event: "unread_count_changed", data: { counts: { total: 0 } } });
    await s.send("a2", { tenant: "a" });
    expect((((await a.next()) as Frame).data.message as { content: string }).content).toBe("a2");
    for (const socket of [a, b, plain]) socket.ws.close();
  });

  it("edits the subscriber's preferences inside its tenant, and leaves their own alone", async () => {
    const s = await setUp();
    const a = await s.session({ tenant: "a" });
    const patched = await inbox<{ data: { channels: Record<string, boolean> } }>(a.token, "PATCH", "/preferences", { email: false });
    expect(patched.status).toBe(200);
    expect(patched.body.data.channels.email).toBe(false);
    const inside = await api<{ channels?: Record<string, boolean> }>(
      s.key,
      "GET",
      `/v1/subscribers/${s.subscriberId}/preferences?tenant=a`,
    );
    expect(inside.body.channels?.email).toBe(false);
    const own = await api<{ channels: Record<string, boolean> }>(s.key, "GET", `/v1/subscribers/${s.subscriberId}/preferences`);
    expect(own.body.channels.email).toBe(true);
    // A session of no context (or another tenant) sees the subscriber's own.
    const plain = await s.session();
    const global = await inbox<{ data: { channels: Record<string, boolean> } }>(plain.token, "GET", "/preferences/global");
    expect(global.body.data.channels.email).toBe(true);
    const b = await s.session({ tenant: "b" });
    expect(
      (await inbox<{ data: { channels: Record<string, boolean> } }>(b.token, "GET", "/preferences/global")).body.data.channels.email,
    ).toBe(true);
  });
});

describe("GET /v1/subscribers/{id}/notifications?tenant=", () => {
  it("lists, counts and marks only that tenant's notifications, and names each one's tenant", async () => {
    const s = await setUp();
    await s.send("a1", { tenant: "a" });
    await s.send("b1", { tenant: "b" });
    await s.send("none");
    const path = `/v1/subscribers/${s.subscriberId}/notifications`;
    const list = await api<{ data: { body: string; tenant: string | null }[] }>(s.key, "GET", `${path}?tenant=a`);
    expect(list.body.data.map((n) => [n.body, n.tenant])).toEqual([["a1", "a"]]);
    const all = await api<{ data: { body: string; tenant: string | null }[] }>(s.key, "GET", path);
    expect(all.body.data.map((n) => n.tenant).sort()).toEqual(["a", "b", null]);
    expect((await api<{ unread: number }>(s.key, "GET", `${path}/counts?tenant=b`)).body.unread).toBe(1);
    const marked = await api<{ updated: number; counts: { unread: number } }>(s.key, "POST", `${path}/mark-all?tenant=a`, { read: true });
    expect(marked.body).toMatchObject({ updated: 1, counts: { unread: 0 } });
    expect((await api<{ unread: number }>(s.key, "GET", `${path}/counts`)).body.unread).toBe(2);
  });
});
