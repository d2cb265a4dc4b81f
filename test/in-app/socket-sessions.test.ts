// An open Inbox socket ends with the session it was opened with, as REST does: the in-app secret
// rotated, hmacRequired changed, the token expired, the subscriber erased and created again.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueSessionToken, SESSION_TTL_SECONDS } from "../../src/novu/inbox/session-token";
import { createEnvironment, createWorkflow, unique } from "../factories";
import { triggerDelivered } from "../held-triggers";
import { api } from "../request";
import { connect, type Frame, upgrade } from "./socket-client";

const IN_APP_STEP = { id: "bell", type: "in_app", template: { subject: "Secret {{ payload.n }}", body: "Body {{ payload.n }}" } };

/**
 * An environment with an in_app workflow and a subscriber, both older than a token issued a
 * minute ago (`iat` counts seconds: a change in the token's own second would not end it).
 */
async function setup() {
  const environment = await createEnvironment();
  const workflow = await createWorkflow(environment.key, { steps: [IN_APP_STEP] });
  const subscriberId = unique("sub");
  expect((await api(environment.key, "POST", "/sub", { subscriberId })).status).toBeLessThan(300);
  expect((await api(environment.key, "GET", "/v1/in-app/settings")).status).toBe(200);
  await backdate(environment.id, subscriberId, Date.now() - 2 * SESSION_TTL_SECONDS * 1000);
  const token = (issuedAt = new Date(Date.now() - 60_000)) =>
    issueSessionToken(env.ENCRYPTION_KEY, { environmentId: environment.id, subscriberId }, issuedAt);
  return { ...environment, workflow: workflow.key, subscriberId, token };
}

const backdate = (environmentId: string, subscriberId: string, at: number) =>
  env.DB.batch([
    env.DB.prepare("UPDATE in_app_settings SET updated_at = ? WHERE environment_id = ?").bind(at, environmentId),
    env.DB.prepare("UPDATE subscribers SET created_at = ? WHERE environment_id = ? AND subscriber_id = ?").bind(
      at,
      environmentId,
      subscriberId,
    ),
  ]);

/** Whichever comes first on the socket: a frame, or its close. */
async function firstOf(socket: Awaited<ReturnType<typeof connect>>) {
  return Promise.race([socket.closed.then((e) => ({ closed: e.code, reason: e.reason })), socket.next().then((frame) => ({ frame }))]);
}

const settingsChanges = [
  ["the in-app secret is rotated", (key: string) => api(key, "POST", "/v1/in-app/settings/rotate-secret")],
  ["hmacRequired is turned off", (key: string) => api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: false })],
] as const;

describe("an open Inbox socket ends with its session", () => {
  it.each(settingsChanges)("closes the socket when %s, and lets a new session's socket receive", async (_, change) => {
    const s = await setup();
    const socket = await connect(await s.token());
    expect((await change(s.key)).status).toBe(200);
    expect(await firstOf(socket)).toEqual({ closed: 1008, reason: "session ended" });
    expect(socket.frames).toEqual([]);
    // Its reconnect with the same token is refused; a session started after the change is not.
    expect((await upgrade(`?token=${await s.token()}`)).status).toBe(401);
    const fresh = await connect(await s.token(new Date()));
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { n: 1 } });
    expect(((await fresh.next()) as Frame).event).toBe("notification_received");
    fresh.ws.close();
  });

  it("pushes nothing to a socket whose settings changed without it being told: the push closes it instead", async () => {
    const s = await setup();
    const socket = await connect(await s.token());
    // What a change leaves when its closing of sockets did not reach this object.
    await env.DB.prepare("UPDATE in_app_settings SET updated_at = ? WHERE environment_id = ?").bind(Date.now(), s.id).run();
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { n: 2 } });
    expect(await firstOf(socket)).toEqual({ closed: 1008, reason: "session ended" });
    expect(socket.frames).toEqual([]);
  });

  it("pushes nothing to a socket of an erased subscriber whose subscriberId was created again", async () => {
    const s = await setup();
    const socket = await connect(await s.token());
    // An erasure whose closing of sockets did not reach this object, then a new person with the same id.
    await env.DB.prepare("DELETE FROM subscribers WHERE environment_id = ? AND subscriber_id = ?").bind(s.id, s.subscriberId).run();
    expect((await api(s.key, "POST", "/sub", { subscriberId: s.subscriberId })).status).toBeLessThan(300);
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { n: 3 } });
    expect(await firstOf(socket)).toEqual({ closed: 1008, reason: "session ended" });
    expect(socket.frames).toEqual([]);
  });

  it("refuses to open a socket with a token issued before the subscriberId was erased and created again", async () => {
    const s = await setup();
    const token = await s.token();
    (await connect(token)).ws.close();
    expect((await api(s.key, "DELETE", `/v1/subscribers/${s.subscriberId}`)).status).toBe(200);
    expect((await api(s.key, "POST", "/sub", { subscriberId: s.subscriberId })).status).toBeLessThan(300);
    const res = await upgrade(`?token=${token}`);
    expect(res.status).toBe(401);
  });

  it("closes the socket when its token expires", async () => {
    const s = await setup();
    // Expires in one to two seconds.
    const issuedAt = new Date(Date.now() - (SESSION_TTL_SECONDS - 2) * 1000);
    const token = await s.token(issuedAt);
    const socket = await connect(token);
    const expiresAt = (Math.floor(issuedAt.getTime() / 1000) + SESSION_TTL_SECONDS) * 1000;
    const object = env.INBOX_SOCKETS.get(env.INBOX_SOCKETS.idFromName(`${s.id}:${s.subscriberId}`));
    expect(await runInDurableObject(object, (_, state) => state.storage.getAlarm())).toBe(expiresAt);
    // The object's alarm, at the token's expiry.
    expect(await firstOf(socket)).toEqual({ closed: 1008, reason: "session expired" });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(await runInDurableObject(object, (_, state) => state.storage.getAlarm())).toBeNull();
  });

  it("keeps the alarm at the earliest expiry of the sockets still open, and none once all are closed", async () => {
    const s = await setup();
    const older = new Date(Date.now() - 120_000);
    const newer = new Date(Date.now() - 60_000);
    const expiry = (issuedAt: Date) => (Math.floor(issuedAt.getTime() / 1000) + SESSION_TTL_SECONDS) * 1000;
    const [first, second] = [await connect(await s.token(older)), await connect(await s.token(newer))];
    const object = env.INBOX_SOCKETS.get(env.INBOX_SOCKETS.idFromName(`${s.id}:${s.subscriberId}`));
    // Each read waits for the object's close handling before it (it holds the object until the alarm is set).
    const alarm = () => runInDurableObject(object, (_, state) => state.storage.getAlarm());
    expect(await alarm()).toBe(expiry(older));
    first.ws.close(1000, "tab closed");
    await first.closed;
    expect(await alarm()).toBe(expiry(newer));
    second.ws.close(1000, "tab closed");
    await second.closed;
    expect(await alarm()).toBeNull();
  });
});
