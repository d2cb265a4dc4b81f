import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { topicMemberIds } from "../../src/db/queries/topics";
import { type Topic, type TopicMember, type TopicMembersAdded, type TopicWithCount, topicCursor } from "../../src/features/topics/schemas";
import { createEnvironment, createSandboxEnvironment, subscriberRow, unique } from "../factories";
import { acceptThenCrash, deliverHeldJobs, readTrigger } from "../ledger";
import { api, errorPaths, expectProblem } from "../request";

type Page<T> = { data: T[]; nextCursor: string | null };

let key: string;
let environmentId: string;

beforeAll(async () => {
  ({ key, id: environmentId } = await createEnvironment());
});

const topicKey = () => unique("topic").toLowerCase();
const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);

async function createTopic(apiKey = key, body: { key: string; name: string } = { key: topicKey(), name: "Watchers" }) {
  const res = await api<Topic>(apiKey, "POST", "/v1/topics", body);
  if (res.status !== 201) throw new Error(`topic not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const addMembers = (topic: string, subscriberIds: unknown, apiKey = key) =>
  api<TopicMembersAdded>(apiKey, "POST", `/v1/topics/${topic}/subscribers`, { subscriberIds });

async function allMembers(topic: string, limit: number, apiKey = key) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await api<Page<TopicMember>>(apiKey, "GET", `/v1/topics/${topic}/subscribers?${query}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data.map((m) => m.subscriberId));
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  return { seen, pages };
}

describe("POST /v1/topics", () => {
  it("creates a topic", async () => {
    const body = { key: topicKey(), name: "Project 42 watchers" };
    const res = await api<Topic>(key, "POST", "/v1/topics", body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    expect(res.body.id).toMatch(/^top_/);
  });

  it("accepts ':' in keys", async () => {
    const res = await api<Topic>(key, "POST", "/v1/topics", { key: `project:42:${topicKey()}`, name: "Scoped" });
    expect(res.status).toBe(201);
  });

  it("answers 409 topic_exists for a key taken in the environment", async () => {
    const topic = await createTopic();
    const res = await api(key, "POST", "/v1/topics", { key: topic.key, name: "Again" });
    expectProblem(res, 409, "topic_exists");
  });

  it.each([
    ["an uppercase key", { key: "Watchers", name: "x" }, "key"],
    ["a key starting with '-'", { key: "-watchers", name: "x" }, "key"],
    ["a key of 129 characters", { key: "a".repeat(129), name: "x" }, "key"],
    ["a missing name", { key: "watchers" }, "name"],
    ["an empty name", { key: "watchers", name: "  " }, "name"],
    ["an unknown field", { key: "watchers", name: "x", color: "red" }, "(root)"],
  ])("answers 422 for %s", async (_label, body, path) => {
    const res = await api(key, "POST", "/v1/topics", body);
    const problem = expectProblem(res, 422, "validation_failed");
    expect(errorPaths(problem)).toContain(path);
  });
});

describe("GET /v1/topics", () => {
  it("pages through topics by key", async () => {
    const own = await createEnvironment();
    const keys = ["b-topic", "a-topic", "c-topic"];
    for (const k of keys) await createTopic(own.key, { key: k, name: k });
    const first = await api<Page<Topic>>(own.key, "GET", "/v1/topics?limit=2");
    expect(first.body.data.map((t) => t.key)).toEqual(["a-topic", "b-topic"]);
    expect(first.body.nextCursor).toBe(topicCursor.encode(["b-topic"]));
    const second = await api<Page<Topic>>(own.key, "GET", `/v1/topics?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ key: "c-topic" })], nextCursor: null });
    // The cursor of 0.12 (the key itself) still pages, until 0.14.
    expect((await api<Page<Topic>>(own.key, "GET", "/v1/topics?limit=2&cursor=b-topic")).body).toEqual(second.body);
  });

  it.each(["Not%20A%20Key", "WyJOb3QgYSBrZXkiXQ"])("answers 422 for a cursor that is not one of this list: %s", async (cursor) => {
    expectProblem(await api(key, "GET", `/v1/topics?cursor=${cursor}`), 422, "validation_failed");
  });

  it("answers 422 for a limit above 100", async () => {
    expectProblem(await api(key, "GET", "/v1/topics?limit=101"), 422, "validation_failed");
  });
});

describe("GET /v1/topics/{key}", () => {
  it("returns the topic with its member count", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ids("count", 3));
    const res = await api<TopicWithCount>(key, "GET", `/v1/topics/${topic.key}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...topic, memberCount: 3 });
  });

  it("answers 404 topic_not_found for an unknown key", async () => {
    expectProblem(await api(key, "GET", "/v1/topics/nope"), 404, "topic_not_found");
  });
});

describe("PUT /v1/topics/{key}", () => {
  it("renames a topic", async () => {
    const topic = await createTopic();
    const res = await api<Topic>(key, "PUT", `/v1/topics/${topic.key}`, { name: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: topic.id, key: topic.key, name: "Renamed" });
    expect((await api<Topic>(key, "GET", `/v1/topics/${topic.key}`)).body.name).toBe("Renamed");
  });

  it("refuses to change the key", async () => {
    const topic = await createTopic();
    const res = await api(key, "PUT", `/v1/topics/${topic.key}`, { key: "other", name: "x" });
    expectProblem(res, 422, "validation_failed");
  });

  it("answers 404 for an unknown key", async () => {
    expectProblem(await api(key, "PUT", "/v1/topics/nope", { name: "x" }), 404, "topic_not_found");
  });
});

describe("DELETE /v1/topics/{key}", () => {
  it("deletes the topic and its memberships, keeping the subscribers", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ["del-1", "del-2"]);
    const res = await api(key, "DELETE", `/v1/topics/${topic.key}`);
    expect(res.status).toBe(204);
    expectProblem(await api(key, "GET", `/v1/topics/${topic.key}`), 404, "topic_not_found");
    expect(await topicMemberIds(createDb(env.DB), environmentId, topic.key, null, 10)).toEqual([]);
    expect(await subscriberRow(environmentId, "del-1")).not.toBeNull();
  });

  it("starts a re-created topic empty", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ["again-1"]);
    await api(key, "DELETE", `/v1/topics/${topic.key}`);
    await createTopic(key, { key: topic.key, name: "Again" });
    expect((await api<TopicWithCount>(key, "GET", `/v1/topics/${topic.key}`)).body.memberCount).toBe(0);
  });

  it("answers 404 for an unknown key", async () => {
    expectProblem(await api(key, "DELETE", "/v1/topics/nope"), 404, "topic_not_found");
  });
});

describe("POST /v1/topics/{key}/subscribers", () => {
  it("adds 1000 members in one call and creates the unknown ones as bare subscribers", async () => {
    const topic = await createTopic();
    const members = ids(unique("k"), 1000);
    const res = await addMembers(topic.key, members);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ added: 1000, alreadyMembers: 0, topic: topic.key });
    expect((await api<TopicWithCount>(key, "GET", `/v1/topics/${topic.key}`)).body.memberCount).toBe(1000);
    const bare = await subscriberRow(environmentId, members[999]!);
    expect(bare).toMatchObject({ subscriber_id: members[999], email: null, phone: null });
    expect(String(bare?.id)).toMatch(/^sub_/);
  });

  it("keeps an existing subscriber's profile", async () => {
    const topic = await createTopic();
    const subscriberId = unique("profiled");
    expect((await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com" })).status).toBeLessThan(300);
    await addMembers(topic.key, [subscriberId]);
    expect(await subscriberRow(environmentId, subscriberId)).toMatchObject({ email: "ada@example.com" });
  });

  it("counts members added again as alreadyMembers, and duplicates in one call once", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ["re-1", "re-2"]);
    const res = await addMembers(topic.key, ["re-1", "re-2", "re-3", "re-3"]);
    expect(res.body).toEqual({ added: 1, alreadyMembers: 2, topic: topic.key });
    expect((await api<TopicWithCount>(key, "GET", `/v1/topics/${topic.key}`)).body.memberCount).toBe(3);
  });

  it.each([
    ["1001 ids", ids("over", 1001)],
    ["an empty list", []],
    ["an empty id", ["ok", ""]],
    ["a non-string id", ["ok", 42]],
  ])("answers 422 for %s", async (_label, subscriberIds) => {
    const topic = await createTopic();
    const problem = expectProblem(await addMembers(topic.key, subscriberIds), 422, "validation_failed");
    expect(errorPaths(problem).some((p) => p.startsWith("subscriberIds"))).toBe(true);
  });

  it("answers 404 for an unknown topic (topics are never created implicitly)", async () => {
    expectProblem(await addMembers("no-such-topic", ["x"]), 404, "topic_not_found");
    expectProblem(await api(key, "GET", "/v1/topics/no-such-topic"), 404, "topic_not_found");
  });
});

describe("DELETE /v1/topics/{key}/subscribers", () => {
  it("removes members and ignores ids that were not members", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ["rm-1", "rm-2", "rm-3"]);
    const res = await api(key, "DELETE", `/v1/topics/${topic.key}/subscribers`, { subscriberIds: ["rm-1", "rm-3", "never"] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: 2 });
    expect((await allMembers(topic.key, 50)).seen).toEqual(["rm-2"]);
    expect(await subscriberRow(environmentId, "rm-1")).not.toBeNull();
  });

  it("removes 1000 members in one call", async () => {
    const topic = await createTopic();
    const members = ids(unique("rmk"), 1000);
    await addMembers(topic.key, members);
    const res = await api(key, "DELETE", `/v1/topics/${topic.key}/subscribers`, { subscriberIds: members });
    expect(res.body).toEqual({ removed: 1000 });
  });

  it("answers 404 for an unknown topic and 422 for a bad body", async () => {
    expectProblem(await api(key, "DELETE", "/v1/topics/nope/subscribers", { subscriberIds: ["x"] }), 404, "topic_not_found");
    const topic = await createTopic();
    expectProblem(await api(key, "DELETE", `/v1/topics/${topic.key}/subscribers`, { subscriberIds: [] }), 422, "validation_failed");
  });
});

describe("GET /v1/topics/{key}/subscribers", () => {
  it("pages through 250 members by subscriberId, 100 at a time", async () => {
    const topic = await createTopic();
    const members = ids("page", 250);
    await addMembers(topic.key, [...members].reverse());
    const { seen, pages } = await allMembers(topic.key, 100);
    expect(pages).toBe(3);
    expect(seen).toEqual(members);
  });

  it("shows when each member was added", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ["when-1"]);
    const res = await api<Page<TopicMember>>(key, "GET", `/v1/topics/${topic.key}/subscribers`);
    expect(res.body).toEqual({ data: [{ subscriberId: "when-1", addedAt: expect.any(String) }], nextCursor: null });
  });

  it("answers 404 for an unknown topic and 422 for a bad limit", async () => {
    expectProblem(await api(key, "GET", "/v1/topics/nope/subscribers"), 404, "topic_not_found");
    const topic = await createTopic();
    expectProblem(await api(key, "GET", `/v1/topics/${topic.key}/subscribers?limit=0`), 422, "validation_failed");
  });
});

describe("topicMemberIds", () => {
  it("pages member ids by subscriberId for the fan-out", async () => {
    const topic = await createTopic();
    await addMembers(topic.key, ["m-c", "m-a", "m-b", "m-d"]);
    const db = createDb(env.DB);
    expect(await topicMemberIds(db, environmentId, topic.key, null, 3)).toEqual(["m-a", "m-b", "m-c"]);
    expect(await topicMemberIds(db, environmentId, topic.key, "m-c", 3)).toEqual(["m-d"]);
    expect(await topicMemberIds(db, environmentId, topic.key, "m-d", 3)).toEqual([]);
  });
});

describe("environment isolation", () => {
  it("keeps topics and members of one environment out of another", async () => {
    const a = await createEnvironment();
    const b = await createEnvironment();
    await createTopic(a.key, { key: "shared-key", name: "A" });
    expectProblem(await api(b.key, "GET", "/v1/topics/shared-key"), 404, "topic_not_found");
    expectProblem(await addMembers("shared-key", ["x"], b.key), 404, "topic_not_found");
    expect((await api<Page<Topic>>(b.key, "GET", "/v1/topics")).body.data).toEqual([]);

    await createTopic(b.key, { key: "shared-key", name: "B" });
    await addMembers("shared-key", ["only-a"], a.key);
    await addMembers("shared-key", ["only-b-1", "only-b-2"], b.key);
    expect((await allMembers("shared-key", 10, a.key)).seen).toEqual(["only-a"]);
    expect((await allMembers("shared-key", 10, b.key)).seen).toEqual(["only-b-1", "only-b-2"]);
    expect(await subscriberRow(b.id, "only-a")).toBeNull();

    await api(a.key, "DELETE", "/v1/topics/shared-key");
    expect((await api<TopicWithCount>(b.key, "GET", "/v1/topics/shared-key")).body).toMatchObject({ name: "B", memberCount: 2 });
  });
});

describe("trigger to a topic", () => {
  type MessageView = { subscriberId: string; stepId: string; status: string; to: string | null };

  /** The trigger's messages, each sent. */
  async function sentTo(apiKey: string, transactionId: string, expected: number) {
    const res = await api<Page<MessageView>>(apiKey, "GET", `/v1/messages?transactionId=${encodeURIComponent(transactionId)}&limit=200`);
    const data = res.body.data;
    expect(data).toHaveLength(expected);
    expect(data.filter((m) => m.status !== "sent")).toEqual([]);
    return data;
  }

  /** Accepts a trigger to the topic into its ledger as the API does, and runs its whole delivery now. */
  async function triggerNow(environmentId: string, workflow: string, to: unknown, topic: string) {
    const { transactionId } = await acceptThenCrash(environmentId, workflow, to, { topics: [topic] });
    await deliverHeldJobs(environmentId, transactionId);
    return transactionId;
  }

  async function topicWithEmailMembers(count: number) {
    const environment = await createSandboxEnvironment();
    const workflow = unique("wf").toLowerCase();
    const created = await api(environment.key, "POST", "/v1/workflows", {
      key: workflow,
      name: "News",
      steps: [{ id: "email", type: "email", template: { subject: "News for {{ subscriber.subscriberId }}", text: "Hello" } }],
    });
    expect(created.status).toBe(201);
    const members = ids("reader", count);
    const upserted = await api(environment.key, "POST", "/sub/bulk", {
      subscribers: members.map((subscriberId) => ({ subscriberId, email: `${subscriberId}@example.com` })),
    });
    expect(upserted.status).toBe(200);
    const topic = await createTopic(environment.key);
    expect((await addMembers(topic.key, members, environment.key)).body).toMatchObject({ added: count });
    return { ...environment, workflow, topic: topic.key, members };
  }

  it("sends exactly one message to every member but the excluded one", async () => {
    const { id, key: apiKey, workflow, topic, members } = await topicWithEmailMembers(5);
    const excluded = members[2]!;
    const transactionId = await triggerNow(id, workflow, { topic, exclude: [excluded] }, topic);
    // Completed: every chunk of the fan-out has run, so a duplicate would be among these messages.
    expect((await api(apiKey, "GET", `/v1/trigger/${transactionId}`)).body.status).toBe("completed");
    const settled = await sentTo(apiKey, transactionId, members.length - 1);
    expect(settled.map((m) => m.subscriberId).sort()).toEqual(members.filter((m) => m !== excluded));
    expect(settled.every((m) => m.to === `${m.subscriberId}@example.com`)).toBe(true);
  });

  it("reaches every member through Novu's form { type: 'Topic', topicKey } on /novu", async () => {
    const { id, key: apiKey, workflow, topic, members } = await topicWithEmailMembers(3);
    const res = await api<{ data: { transactionId: string } }>(apiKey, "POST", "/novu/v1/events/trigger", {
      name: workflow,
      to: { type: "Topic", topicKey: topic },
    });
    expect(res.status).toBe(201);
    // Novu's form is recorded as Clarion's; a trigger of what was recorded, delivered now, reaches every member.
    const recorded = (await readTrigger(id, res.body.data.transactionId))!.recipients;
    expect(recorded).toEqual([{ topic }]);
    const transactionId = await triggerNow(id, workflow, recorded, topic);
    const messages = await sentTo(apiKey, transactionId, members.length);
    expect(messages.map((m) => m.subscriberId).sort()).toEqual(members);
  });
});
