// `@novu/api` (v3), unmodified, pointed at Clarion with `serverURL: <clarion>/novu`.
import { Novu } from "@novu/api";
import * as novuErrors from "@novu/api/models/errors/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { clarion, delivered, eventually, key, mail, messagesOf, novuBase, sentTo, unique, workflow } from "./clarion";

const novu = new Novu({ secretKey: key, serverURL: novuBase });
let workflowId: string;

beforeAll(async () => {
  workflowId = await workflow();
});

describe("@novu/api events", () => {
  it("trigger to a subscriberId and to an inline subscriber reaches the sandbox", async () => {
    const [known, inline] = [mail("known"), mail("inline")];
    const subscriberId = unique("known");
    await novu.subscribers.create({ subscriberId, email: known });
    const res = await novu.trigger({
      workflowId,
      to: [subscriberId, { subscriberId: unique("inline"), email: inline, firstName: "Ada" }],
      payload: { n: 1 },
    });
    expect(res.result).toMatchObject({ acknowledged: true, status: "processed", transactionId: expect.any(String) });
    const sent = await delivered([known, inline]);
    expect(sent.find((m) => m.to === known)?.content).toMatchObject({ subject: "Hi 1" });
  });

  it("trigger to a topic reaches its members", async () => {
    const topicKey = unique("topic");
    const [a, b] = [unique("a"), unique("b")];
    const [mailA, mailB] = [mail("ta"), mail("tb")];
    await novu.subscribers.createBulk({
      subscribers: [
        { subscriberId: a, email: mailA },
        { subscriberId: b, email: mailB },
      ],
    });
    await novu.topics.create({ key: topicKey, name: "Topic" });
    await novu.topics.subscriptions.create({ subscriptions: [a, b] }, topicKey);
    const res = await novu.trigger({ workflowId, to: { type: "Topic", topicKey }, payload: { n: 2 } });
    expect(res.result.status).toBe("processed");
    await delivered([mailA, mailB]);
  });

  it("triggerBulk accepts every event", async () => {
    const [a, b] = [mail("bulk-a"), mail("bulk-b")];
    const res = await novu.triggerBulk({
      events: [
        { workflowId, to: { subscriberId: unique("ba"), email: a } },
        { workflowId, to: { subscriberId: unique("bb"), email: b } },
      ],
    });
    expect(res.result.map((r) => r.status)).toEqual(["processed", "processed"]);
    await delivered([a, b]);
  });

  it("triggerBroadcast reaches every subscriber of the environment", async () => {
    const address = mail("everyone");
    await novu.subscribers.create({ subscriberId: unique("everyone"), email: address });
    const broadcastWorkflow = await workflow([{ id: "mail", type: "email", template: { subject: "To all", text: "Hello all" } }]);
    const res = await novu.triggerBroadcast({ name: broadcastWorkflow, payload: {} });
    expect(res.result).toMatchObject({ acknowledged: true, status: "processed" });
    const sent = await delivered([address]);
    expect(sent[0]?.content).toMatchObject({ subject: "To all" });
  });

  it("cancel stops a delayed trigger: its message is cancelled and nothing is sent", async () => {
    const delayed = await workflow([
      { id: "wait", type: "delay", for: "PT1H" },
      { id: "mail", type: "email", template: { subject: "Later", text: "Hi" } },
    ]);
    const address = mail("delayed");
    const transactionId = unique("txn");
    await novu.trigger({ workflowId: delayed, to: { subscriberId: unique("delayed"), email: address }, transactionId });
    await eventually("the trigger to be recorded", async () => (await clarion("GET", `/v1/trigger/${transactionId}`)).status === 200);
    expect((await novu.cancel(transactionId)).result).toBe(true);
    const messages = await eventually("the cancelled message", async () => {
      const list = await messagesOf(transactionId);
      return list.length && list.every((m) => m.status === "cancelled") ? list : undefined;
    });
    expect(messages).toHaveLength(1);
    expect((await novu.cancel(transactionId)).result).toBe(false);
    expect(await sentTo(address)).toBe(0);
  });
});

describe("@novu/api subscribers", () => {
  it("create, failIfExists, retrieve, patch and delete", async () => {
    const subscriberId = unique("sub");
    const created = await novu.subscribers.create({
      subscriberId,
      email: mail("c"),
      firstName: "Ada",
      locale: "en_GB",
      data: { plan: "pro" },
    });
    expect(created.result).toMatchObject({ subscriberId, firstName: "Ada", locale: "en-GB", deleted: false, id: expect.any(String) });

    // @novu/api retries a 409 for up to an hour by default (its `retryCodes`): Novu's own 409 here too.
    const conflict = await novu.subscribers
      .create({ subscriberId, firstName: "Other" }, true, undefined, { retries: { strategy: "none" } })
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(novuErrors.SubscriberResponseDto);
    expect((conflict as novuErrors.SubscriberResponseDto).statusCode).toBe(409);

    const patched = await novu.subscribers.patch({ lastName: "Lovelace" }, subscriberId);
    expect(patched.result).toMatchObject({ firstName: "Ada", lastName: "Lovelace" });
    expect((await novu.subscribers.retrieve(subscriberId)).result).toMatchObject({
      subscriberId,
      lastName: "Lovelace",
      data: { plan: "pro" },
    });
    expect((await clarion("GET", `/v1/subscribers/${subscriberId}`)).body).toMatchObject({ lastName: "Lovelace" });

    expect((await novu.subscribers.delete(subscriberId)).result).toEqual({ acknowledged: true, status: "deleted" });
    const gone = await novu.subscribers.retrieve(subscriberId).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(novuErrors.ErrorDto);
    expect((gone as novuErrors.ErrorDto).statusCode).toBe(404);
  });

  it("createBulk answers created, updated and failed", async () => {
    const [a, b] = [unique("ba"), unique("bb")];
    await novu.subscribers.create({ subscriberId: a });
    const res = await novu.subscribers.createBulk({
      subscribers: [{ subscriberId: a, firstName: "A" }, { subscriberId: b }, { subscriberId: unique("bad"), email: "nope" }],
    });
    expect(res.result.created).toEqual([{ subscriberId: b }]);
    expect(res.result.updated).toEqual([{ subscriberId: a }]);
    expect(res.result.failed).toHaveLength(1);
  });

  it("credentials update and append set push tokens the push step then sends to", async () => {
    const subscriberId = unique("push");
    await novu.subscribers.create({ subscriberId });
    await novu.subscribers.credentials.update({ providerId: "fcm", credentials: { deviceTokens: [`${subscriberId}-t1`] } }, subscriberId);
    const appended = await novu.subscribers.credentials.append(
      { providerId: "fcm", credentials: { deviceTokens: [`${subscriberId}-t2`] } },
      subscriberId,
    );
    expect(appended.result.channels).toEqual([
      // Masked as every read shows them; the push step below proves both were stored.
      expect.objectContaining({ providerId: "fcm", credentials: { deviceTokens: ["push••••", "push••••"] } }),
    ]);
    const pushWorkflow = await workflow([{ id: "push", type: "push", template: { title: "Ping", body: "Hello" } }]);
    await novu.trigger({ workflowId: pushWorkflow, to: subscriberId });
    await delivered([`${subscriberId}-t1`, `${subscriberId}-t2`]);
    await novu.subscribers.credentials.delete(subscriberId, "fcm");
    expect((await clarion<{ channels: { push: unknown[] } }>("GET", `/v1/subscribers/${subscriberId}`)).body.channels.push).toEqual([]);
  });

  it("preferences update turns a channel off, and the trigger skips it", async () => {
    const subscriberId = unique("prefs");
    const address = mail("prefs");
    await novu.subscribers.create({ subscriberId, email: address });
    const updated = await novu.subscribers.preferences.update({ channels: { email: false } }, subscriberId);
    expect(updated.result.global.channels).toMatchObject({ email: false, sms: true });
    expect((await novu.subscribers.preferences.list({ subscriberId })).result.global.channels.email).toBe(false);
    const { result } = await novu.trigger({ workflowId, to: subscriberId });
    const messages = await eventually("the skipped message", async () => {
      const list = await messagesOf(result.transactionId!);
      return list.length ? list : undefined;
    });
    expect(messages.map((m) => m.status)).toEqual(["skipped"]);
    expect(await sentTo(address)).toBe(0);
  });
});

describe("@novu/api topics", () => {
  it("create, subscriptions create and delete, and delete", async () => {
    const topicKey = unique("topic");
    const created = await novu.topics.create({ key: topicKey, name: "News" });
    expect(created.result).toMatchObject({ key: topicKey, name: "News", id: expect.any(String) });
    const taken = await novu.topics
      .create({ key: topicKey, name: "Again" }, true, undefined, { retries: { strategy: "none" } })
      .catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(novuErrors.TopicResponseDto);
    expect((await novu.topics.get(topicKey)).result).toMatchObject({ key: topicKey, name: "News" });
    const subs = await novu.topics.subscriptions.create({ subscriptions: ["x1", "x2"] }, topicKey);
    expect(subs.result.meta).toEqual({ totalCount: 2, successful: 2, failed: 0 });
    const removed = await novu.topics.subscriptions.delete({ subscriptions: ["x1"] }, topicKey);
    expect(removed.result.meta.successful).toBe(1);
    const members = await clarion<{ data: { subscriberId: string }[] }>("GET", `/v1/topics/${topicKey}/subscribers`);
    expect(members.body.data.map((m) => m.subscriberId)).toEqual(["x2"]);
    expect((await novu.topics.delete(topicKey)).result).toEqual({ acknowledged: true });
    const gone = await novu.topics.get(topicKey).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(novuErrors.ErrorDto);
    expect((gone as novuErrors.ErrorDto).statusCode).toBe(404);
    expect((await clarion("GET", `/v1/topics/${topicKey}`)).status).toBe(404);
  });

  it("list by key and name, and subscriptions.list pages a topic's members", async () => {
    const topicKey = unique("listed");
    const name = `${unique("Listed")}x`;
    await novu.topics.create({ key: topicKey, name });
    const byName = await novu.topics.list({ name: name.toUpperCase() });
    expect(byName.result).toMatchObject({
      totalCount: 1,
      next: null,
      previous: null,
      data: [{ key: topicKey, name, id: expect.any(String) }],
    });
    expect((await novu.topics.list({ key: topicKey })).result.data.map((t) => t.key)).toEqual([topicKey]);
    expect((await novu.topics.update({ name: `${name}y` }, topicKey)).result).toMatchObject({ key: topicKey, name: `${name}y` });
    expect((await clarion("GET", `/v1/topics/${topicKey}`)).body).toMatchObject({ name: `${name}y` });

    const members = [`${topicKey}-a`, `${topicKey}-b`, `${topicKey}-c`];
    await novu.topics.subscriptions.create({ subscriptions: members }, topicKey);
    const first = await novu.topics.subscriptions.list({ topicKey, limit: 2 });
    expect(first.result.totalCount).toBe(3);
    expect(first.result.data.map((s) => s.subscriber.subscriberId)).toEqual(members.slice(0, 2));
    expect(first.result.data[0]).toMatchObject({ topic: { key: topicKey }, subscriber: { id: expect.any(String) } });
    const rest = await novu.topics.subscriptions.list({ topicKey, limit: 2, after: first.result.next! });
    expect(rest.result.data.map((s) => s.subscriber.subscriberId)).toEqual([members[2]]);
    expect(rest.result.next).toBeNull();
    const one = await novu.topics.subscriptions.list({ topicKey, subscriberId: members[1] });
    expect(one.result.data.map((s) => s.subscriber.subscriberId)).toEqual([members[1]]);
    const second = unique("second");
    await novu.topics.subscriptions.create({ subscriptions: [members[1]!] }, second);
    expect((await novu.topics.subscribers.retrieve(members[0]!, topicKey)).result).toMatchObject({
      topicKey,
      externalSubscriberId: members[0],
      subscriberId: expect.any(String),
    });
    const stranger = await novu.topics.subscribers.retrieve(unique("stranger"), topicKey).catch((e: unknown) => e);
    expect((stranger as novuErrors.ErrorDto).statusCode).toBe(404);
    const mine = await novu.subscribers.topics.list({ subscriberId: members[1]! });
    expect(mine.result.totalCount).toBe(2);
    expect(mine.result.data.map((s) => s.topic.key).sort()).toEqual([topicKey, second].sort());
  });
});

describe("@novu/api subscribers.search", () => {
  it("pages a name's matches with next and previous, in either order, and filters by email", async () => {
    const family = `${unique("fam")}x`;
    const ids = ["a", "b", "c"].map((x) => `${family}-${x}`);
    await novu.subscribers.createBulk({
      subscribers: ids.map((subscriberId) => ({ subscriberId, firstName: "Ada", lastName: family, email: `${subscriberId}@example.com` })),
    });
    const first = await novu.subscribers.search({ name: family, limit: 2 });
    expect(first.result).toMatchObject({ totalCount: 3, totalCountCapped: false, previous: null });
    expect(first.result.data.map((s) => s.subscriberId)).toEqual(ids.slice(0, 2));
    expect(first.result.data[0]).toMatchObject({ id: expect.any(String), firstName: "Ada", lastName: family, deleted: false });
    const second = await novu.subscribers.search({ name: family, limit: 2, after: first.result.next! });
    expect(second.result.data.map((s) => s.subscriberId)).toEqual([ids[2]]);
    expect(second.result.next).toBeNull();
    const back = await novu.subscribers.search({ name: family, limit: 2, before: second.result.previous! });
    expect(back.result.data.map((s) => s.subscriberId)).toEqual(ids.slice(0, 2));
    const desc = await novu.subscribers.search({ name: family, orderDirection: "DESC" });
    expect(desc.result.data.map((s) => s.subscriberId)).toEqual([...ids].reverse());
    const byEmail = await novu.subscribers.search({ email: `${ids[1]}@example.com` });
    expect(byEmail.result.data.map((s) => s.subscriberId)).toEqual([ids[1]]);
    expect((await novu.subscribers.search({ subscriberId: ids[2] })).result.data.map((s) => s.email)).toEqual([`${ids[2]}@example.com`]);
  });
});
