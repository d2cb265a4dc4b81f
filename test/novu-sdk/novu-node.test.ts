// `@novu/node` (v2), unmodified, pointed at Clarion with `backendUrl: <clarion>/novu`.
import { Novu, TriggerRecipientsTypeEnum } from "@novu/node";
import { beforeAll, describe, expect, it } from "vitest";
import { clarion, delivered, eventually, key, mail, messagesOf, novuBase, sentTo, unique, workflow } from "./clarion";

const novu = new Novu(key, { backendUrl: novuBase });
let workflowId: string;

beforeAll(async () => {
  workflowId = await workflow();
  // Novu's `tenant` becomes Clarion's tenant, which a trigger naming it by id needs to exist.
  const tenant = await clarion("POST", "/v1/tenants", { id: "acme", name: "Acme" });
  expect([201, 409]).toContain(tenant.status);
});

describe("@novu/node events", () => {
  it("trigger to a subscriberId, an inline subscriber and a topic reaches the sandbox", async () => {
    const [known, inline, member] = [mail("n-known"), mail("n-inline"), mail("n-member")];
    const [subscriberId, memberId, topicKey] = [unique("n-known"), unique("n-member"), unique("n-topic")];
    await novu.subscribers.identify(subscriberId, { email: known });
    await novu.subscribers.identify(memberId, { email: member });
    await novu.topics.create({ key: topicKey, name: "Topic" });
    await novu.topics.addSubscribers(topicKey, { subscribers: [memberId] });
    const res = await novu.trigger(workflowId, {
      to: [subscriberId, { subscriberId: unique("n-inline"), email: inline }, { type: TriggerRecipientsTypeEnum.TOPIC, topicKey }],
      payload: { n: 3 },
      tenant: "acme",
    });
    expect(res.status).toBe(201);
    expect(res.data.data).toMatchObject({ acknowledged: true, status: "processed", transactionId: expect.any(String) });
    await delivered([known, inline, member]);
  });

  it("bulkTrigger and broadcast", async () => {
    const [a, b] = [mail("n-bulk-a"), mail("n-bulk-b")];
    const bulk = await novu.bulkTrigger([
      { name: workflowId, to: { subscriberId: unique("n-ba"), email: a } },
      { name: workflowId, to: { subscriberId: unique("n-bb"), email: b } },
    ]);
    expect(bulk.status).toBe(201);
    expect(bulk.data.data).toHaveLength(2);
    await delivered([a, b]);

    const everyone = await workflow([{ id: "mail", type: "email", template: { subject: "Node to all", text: "Hi" } }]);
    const broadcast = await novu.broadcast(everyone, { payload: {} });
    expect(broadcast.data.data).toMatchObject({ acknowledged: true, status: "processed" });
    const sent = await delivered([a, b]);
    await eventually("the broadcast to reach the bulk subscribers", async () => {
      const { body } = await clarion<{ data: { to: string; content: { subject?: string } }[] }>("GET", "/v1/sandbox/messages?limit=500");
      return body.data.filter((m) => [a, b].includes(m.to) && m.content.subject === "Node to all").length === 2;
    });
    expect(sent.length).toBeGreaterThanOrEqual(2);
  });

  it("cancel of a delayed trigger: data true, its message cancelled, nothing sent", async () => {
    const delayed = await workflow([
      { id: "wait", type: "delay", for: "PT1H" },
      { id: "mail", type: "email", template: { subject: "Later", text: "Hi" } },
    ]);
    const address = mail("n-delayed");
    const transactionId = unique("n-txn");
    await novu.trigger(delayed, { to: { subscriberId: unique("n-delayed"), email: address }, payload: {}, transactionId });
    await eventually("the trigger to be recorded", async () => (await clarion("GET", `/v1/trigger/${transactionId}`)).status === 200);
    expect((await novu.events.cancel(transactionId)).data).toEqual({ data: true });
    await eventually("the cancelled message", async () => {
      const list = await messagesOf(transactionId);
      return list.length > 0 && list.every((m) => m.status === "cancelled");
    });
    expect(await sentTo(address)).toBe(0);
  });
});

describe("@novu/node subscribers", () => {
  it("identify (upsert), get, update, delete", async () => {
    const subscriberId = unique("n-sub");
    const created = await novu.subscribers.identify(subscriberId, { email: mail("n-sub"), firstName: "Ada" });
    expect(created.status).toBe(201);
    expect(created.data.data).toMatchObject({ _id: expect.any(String), subscriberId, firstName: "Ada", channels: [] });
    await novu.subscribers.identify(subscriberId, { lastName: "Lovelace" });
    const updated = await novu.subscribers.update(subscriberId, { phone: "+41791234567" });
    expect(updated.data.data).toMatchObject({ firstName: "Ada", lastName: "Lovelace", phone: "+41791234567" });
    expect((await novu.subscribers.get(subscriberId)).data.data).toMatchObject({ subscriberId, _environmentId: expect.any(String) });
    expect((await novu.subscribers.delete(subscriberId)).data.data).toEqual({ acknowledged: true, status: "deleted" });
    const gone = await novu.subscribers.get(subscriberId).catch((e: { response?: { status: number; data: unknown } }) => e.response);
    expect(gone).toMatchObject({ status: 404, data: { statusCode: 404, message: expect.any(String) } });
  });

  it("bulkCreate", async () => {
    const [a, b] = [unique("n-ba"), unique("n-bb")];
    const res = await novu.subscribers.bulkCreate([{ subscriberId: a }, { subscriberId: b, email: mail("n-bb") }]);
    expect(res.status).toBe(201);
    expect(res.data.data.created).toEqual([{ subscriberId: a }, { subscriberId: b }]);
  });

  it("setCredentials and deleteCredentials for a chat provider; the chat step posts to the webhook", async () => {
    const subscriberId = unique("n-chat");
    await novu.subscribers.identify(subscriberId, {});
    const webhookUrl = `https://hooks.slack.com/services/${subscriberId}`;
    await novu.subscribers.setCredentials(subscriberId, "slack", { webhookUrl });
    const chatWorkflow = await workflow([{ id: "chat", type: "chat", template: { text: "Hello chat" } }]);
    await novu.trigger(chatWorkflow, { to: subscriberId, payload: {} });
    await delivered([webhookUrl]);
    await novu.subscribers.unsetCredentials(subscriberId, "slack");
    expect((await novu.subscribers.get(subscriberId)).data.data.channels).toEqual([]);
    await novu.subscribers.setCredentials(subscriberId, "slack", { webhookUrl });
    await novu.subscribers.deleteCredentials(subscriberId, "slack");
    expect((await clarion<{ channels: { chat: unknown[] } }>("GET", `/v1/subscribers/${subscriberId}`)).body.channels.chat).toEqual([]);
  });

  it("updateGlobalPreference, updatePreference and getPreference", async () => {
    const subscriberId = unique("n-prefs");
    await novu.subscribers.identify(subscriberId, { email: mail("n-prefs") });
    await novu.subscribers.updateGlobalPreference(subscriberId, { preferences: [{ type: "sms" as never, enabled: false }] });
    await novu.subscribers.updatePreference(subscriberId, workflowId, { channel: { type: "email" as never, enabled: false } });
    const list = await novu.subscribers.getPreference(subscriberId);
    expect(list.data.data).toEqual([
      expect.objectContaining({
        template: expect.objectContaining({ _id: workflowId }),
        preference: expect.objectContaining({ channels: expect.objectContaining({ email: false, sms: false }) }),
      }),
    ]);
    const global = await novu.subscribers.getGlobalPreference(subscriberId);
    expect(global.data.data).toEqual([
      { preference: expect.objectContaining({ channels: expect.objectContaining({ sms: false, email: true }) }) },
    ]);
    expect((await clarion("GET", `/v1/subscribers/${subscriberId}/preferences`)).body).toMatchObject({
      channels: { sms: false },
      workflows: { [workflowId]: { email: false } },
    });
  });
});

describe("@novu/node topics", () => {
  it("create, addSubscribers, removeSubscribers", async () => {
    const topicKey = unique("n-topic");
    expect((await novu.topics.create({ key: topicKey, name: "News" })).data.data).toMatchObject({ key: topicKey });
    await novu.topics.addSubscribers(topicKey, { subscribers: ["n1", "n2"] });
    await novu.topics.removeSubscribers(topicKey, { subscribers: ["n1"] });
    expect((await novu.topics.rename(topicKey, "Renamed")).data.data).toMatchObject({ key: topicKey, name: "Renamed" });
    const members = await clarion<{ data: { subscriberId: string }[] }>("GET", `/v1/topics/${topicKey}/subscribers`);
    expect(members.body.data.map((m) => m.subscriberId)).toEqual(["n2"]);
  });

  it("list by key and by page, get with its members, delete", async () => {
    const topicKey = unique("n-listed");
    await novu.topics.create({ key: topicKey, name: "Listed" });
    await novu.topics.addSubscribers(topicKey, { subscribers: ["l2", "l1"] });
    const listed = await novu.topics.list({ key: topicKey });
    expect(listed.data).toMatchObject({ page: 0, totalCount: 1, data: [{ _id: expect.any(String), key: topicKey, name: "Listed" }] });
    const paged = await novu.topics.list({ page: 0, pageSize: 1 });
    expect(paged.data).toMatchObject({ page: 0, pageSize: 1 });
    expect(paged.data.data).toHaveLength(1);
    expect(paged.data.totalCount).toBeGreaterThanOrEqual(1);
    expect((await novu.topics.get(topicKey)).data.data).toMatchObject({ key: topicKey, name: "Listed", subscribers: ["l1", "l2"] });
    expect((await novu.topics.getSubscriber(topicKey, "l1")).data.data).toMatchObject({ topicKey, externalSubscriberId: "l1" });
    const outsider = await novu.topics.checkSubscriber(topicKey, "l3").catch((e: { response?: { status: number } }) => e.response);
    expect(outsider).toMatchObject({ status: 404 });
    expect((await novu.topics.delete(topicKey)).status).toBe(204);
    const gone = await novu.topics.get(topicKey).catch((e: { response?: { status: number; data: unknown } }) => e.response);
    expect(gone).toMatchObject({ status: 404, data: { statusCode: 404 } });
    expect((await clarion("GET", `/v1/topics/${topicKey}`)).status).toBe(404);
  });
});

describe("@novu/node subscribers.list", () => {
  it("pages every subscriber by page number, each once", async () => {
    const ids = [unique("n-list"), unique("n-list")];
    for (const id of ids) await novu.subscribers.identify(id, { firstName: "Listed" });
    const small = (await novu.subscribers.list(0, 2)).data;
    expect(small).toMatchObject({ page: 0, pageSize: 2, hasMore: true });
    expect(small.data).toHaveLength(2);
    const seen: string[] = [];
    let page = 0;
    let body: { page: number; pageSize: number; totalCount: number; hasMore: boolean; data: { subscriberId: string }[] };
    do {
      body = (await novu.subscribers.list(page, 100)).data;
      expect(body).toMatchObject({ page, pageSize: 100 });
      seen.push(...body.data.map((s) => s.subscriberId));
      page += 1;
    } while (body.hasMore);
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(body.totalCount);
  });
});
