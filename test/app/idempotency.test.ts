import { env, SELF } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { idempotencyKeys } from "../../src/db/schema";
import type { ApiKeyCreated, ApiKeyList, Environment, EnvironmentList, Rotation } from "../../src/features/environments/schemas";
import type { Topic } from "../../src/features/topics/schemas";
import { canonicalJson, sha256Hex } from "../../src/lib/crypto";
import { createEnvironment, unique, workflowBody } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";

const db = createDb(env.DB);

let key: string;
let environmentId: string;

beforeAll(async () => {
  ({ key, id: environmentId } = await createEnvironment());
});

const topicBody = () => ({ key: unique("topic").toLowerCase(), name: "Watchers" });

const withKey = (idempotencyKey: string) => ({ headers: { "idempotency-key": idempotencyKey } });

const postTopic = (body: unknown, idempotencyKey: string, apiKey = key) =>
  api<Topic>(apiKey, "POST", "/v1/topics", body, withKey(idempotencyKey));

const storedKeys = (scope: string) => db.select().from(idempotencyKeys).where(eq(idempotencyKeys.scope, scope));

/** The fingerprint the middleware computes, for rows a test puts in place itself. */
const fingerprint = (path: string, body: unknown) => sha256Hex(canonicalJson(["POST", path, body]));

describe("Idempotency-Key on POST", () => {
  it("replays the first answer with Idempotency-Replay: true and creates nothing twice", async () => {
    const body = topicBody();
    const idempotencyKey = unique("idem");
    const first = await postTopic(body, idempotencyKey);
    const second = await postTopic(body, idempotencyKey);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotency-replay")).toBeNull();
    // Without the stored answer, the second create would be a 409 topic_exists.
    expect({ status: second.status, body: second.body, replay: second.headers.get("idempotency-replay") }).toEqual({
      status: 201,
      body: first.body,
      replay: "true",
    });
    expect(second.headers.get("content-type")).toBe(first.headers.get("content-type"));
  });

  it.each([
    ["/v1/workflows", () => workflowBody()],
    ["/v1/variables", () => ({ key: `V_${unique("v").replaceAll("-", "_")}`, value: "eu" })],
    ["/sub", () => ({ subscriberId: unique("s"), email: "ada@example.com" })],
  ])("replays the first answer of POST %s", async (path, makeBody) => {
    const body = makeBody();
    const idempotencyKey = unique("idem");
    const first = await api(key, "POST", path, body, withKey(idempotencyKey));
    const second = await api(key, "POST", path, body, withKey(idempotencyKey));
    expect(first.status).toBeLessThan(300);
    expect({ status: second.status, body: second.body, replay: second.headers.get("idempotency-replay") }).toEqual({
      status: first.status,
      body: first.body,
      replay: "true",
    });
  });

  it("treats a body with its fields in another order as the same request", async () => {
    const { key: topic, name } = topicBody();
    const idempotencyKey = unique("idem");
    const first = await postTopic({ key: topic, name }, idempotencyKey);
    const second = await postTopic({ name, key: topic }, idempotencyKey);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotency-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
  });

  it("accepts the key as a structured-field string", async () => {
    const body = topicBody();
    const idempotencyKey = unique("idem");
    await postTopic(body, idempotencyKey);
    const quoted = await postTopic(body, `"${idempotencyKey}"`);
    expect(quoted.headers.get("idempotency-replay")).toBe("true");
  });

  it("answers 422 idempotency_key_mismatch to the same key with another body", async () => {
    const idempotencyKey = unique("idem");
    expect((await postTopic(topicBody(), idempotencyKey)).status).toBe(201);
    expectProblem(await postTopic(topicBody(), idempotencyKey), 422, "idempotency_key_mismatch");
  });

  it("answers 422 idempotency_key_mismatch to the same key on another path", async () => {
    const idempotencyKey = unique("idem");
    expect((await postTopic(topicBody(), idempotencyKey)).status).toBe(201);
    const other = await api(key, "POST", "/v1/variables", { key: "region", value: "eu" }, withKey(idempotencyKey));
    expectProblem(other, 422, "idempotency_key_mismatch");
  });

  it("answers 409 idempotency_key_in_flight while the first request holds the key", async () => {
    const body = topicBody();
    const idempotencyKey = unique("idem");
    await db.insert(idempotencyKeys).values({
      scope: `env:${environmentId}`,
      key: idempotencyKey,
      fingerprint: await fingerprint("/v1/topics", body),
      createdAt: new Date(),
    });
    const res = await postTopic(body, idempotencyKey);
    expectProblem(res, 409, "idempotency_key_in_flight");
    expect(res.headers.get("retry-after")).toBe("1");
  });

  it("lets only one of two concurrent requests with the same key run", async () => {
    const body = topicBody();
    const idempotencyKey = unique("idem");
    const answers = await Promise.all([postTopic(body, idempotencyKey), postTopic(body, idempotencyKey)]);
    const outcome = (res: (typeof answers)[number]) =>
      res.headers.get("idempotency-replay") ? "replay" : res.status === 201 ? "ran" : (res.body as { code?: string }).code;
    // Had both run, the second would be a 409 topic_exists.
    expect(answers.map(outcome).filter((o) => o === "ran")).toHaveLength(1);
    expect(answers.map(outcome).filter((o) => o !== "ran")).toEqual([expect.stringMatching(/^(replay|idempotency_key_in_flight)$/)]);
  });

  it("takes over a claim left in flight past its lease by a request that died", async () => {
    const body = topicBody();
    const idempotencyKey = unique("idem");
    await db.insert(idempotencyKeys).values({
      scope: `env:${environmentId}`,
      key: idempotencyKey,
      fingerprint: await fingerprint("/v1/topics", body),
      createdAt: new Date(Date.now() - 120_000),
    });
    const res = await postTopic(body, idempotencyKey);
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotency-replay")).toBeNull();
  });

  it("runs the request again once the stored answer is older than 24 hours", async () => {
    const idempotencyKey = unique("idem");
    await db.insert(idempotencyKeys).values({
      scope: `env:${environmentId}`,
      key: idempotencyKey,
      fingerprint: "an-older-request",
      responseStatus: 201,
      responseHeaders: { "content-type": "application/json" },
      responseBody: "{}",
      createdAt: new Date(Date.now() - 25 * 3_600_000),
    });
    const res = await postTopic(topicBody(), idempotencyKey);
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotency-replay")).toBeNull();
  });

  it("keeps keys per environment: the same key in another environment runs normally", async () => {
    const other = await createEnvironment();
    const idempotencyKey = unique("idem");
    const body = topicBody();
    expect((await postTopic(body, idempotencyKey)).status).toBe(201);
    const elsewhere = await postTopic(body, idempotencyKey, other.key);
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get("idempotency-replay")).toBeNull();
    expect((await api<Topic>(other.key, "GET", `/v1/topics/${body.key}`)).status).toBe(200);
  });

  it("replays a 4xx answer too", async () => {
    const idempotencyKey = unique("idem");
    const first = await postTopic({ name: "No key" }, idempotencyKey);
    expectProblem(first, 422, "validation_failed");
    const second = await postTopic({ name: "No key" }, idempotencyKey);
    expect(second.headers.get("idempotency-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
  });

  it("does not keep a 409, so a retry runs again", async () => {
    const body = topicBody();
    expect((await api(key, "POST", "/v1/topics", body)).status).toBe(201);
    const idempotencyKey = unique("idem");
    expectProblem(await postTopic(body, idempotencyKey), 409, "topic_exists");
    expect((await api(key, "DELETE", `/v1/topics/${body.key}`)).status).toBeLessThan(300);
    const retry = await postTopic(body, idempotencyKey);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replay")).toBeNull();
  });

  it("stores nothing for a request without the header", async () => {
    const { key: apiKey, id } = await createEnvironment();
    expect((await api(apiKey, "POST", "/v1/topics", topicBody())).status).toBe(201);
    expect(await storedKeys(`env:${id}`)).toEqual([]);
  });

  it.each([
    ["empty", ""],
    ["longer than 255 characters", "k".repeat(256)],
    ["not ASCII", "café"],
    ["an empty quoted string", '""'],
  ])("answers 400 invalid_idempotency_key to a key that is %s", async (_, idempotencyKey) => {
    const body = topicBody();
    expectProblem(await postTopic(body, idempotencyKey), 400, "invalid_idempotency_key");
    expect((await api(key, "GET", `/v1/topics/${body.key}`)).status).toBe(404);
  });

  it("accepts a key of exactly 255 printable characters", async () => {
    expect((await postTopic(topicBody(), `${unique("k")} ~!`.padEnd(255, "x"))).status).toBe(201);
  });
});

describe("Idempotency-Key on the admin API", () => {
  it("replays the first answer to the admin and creates one environment", async () => {
    const body = { name: "Staging", slug: unique("stg") };
    const idempotencyKey = unique("idem");
    const post = () => api<Environment>(ADMIN_KEY, "POST", "/v1/admin/environments", body, withKey(idempotencyKey));
    const first = await post();
    const second = await post();
    expect(first.status).toBe(201);
    expect({ status: second.status, body: second.body, replay: second.headers.get("idempotency-replay") }).toEqual({
      status: 201,
      body: first.body,
      replay: "true",
    });
    const { body: list } = await api<EnvironmentList>(ADMIN_KEY, "GET", "/v1/admin/environments?limit=100");
    expect(list.data.filter((e) => e.slug === body.slug)).toHaveLength(1);
    const [row] = await db
      .select({ scope: idempotencyKeys.scope })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, "admin"), eq(idempotencyKeys.key, idempotencyKey)));
    expect(row).toEqual({ scope: "admin" });
  });
});

describe("Idempotency-Key on an answer that carries a secret", () => {
  const storedBody = async (idempotencyKey: string) =>
    (
      await db
        .select({ body: idempotencyKeys.responseBody })
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.scope, "admin"), eq(idempotencyKeys.key, idempotencyKey)))
    )[0]?.body ?? "";

  async function environmentWithKey() {
    const slug = unique("sec");
    await api(ADMIN_KEY, "POST", "/v1/admin/environments", { name: "Secrets", slug });
    return slug;
  }

  it("never stores a new API key, and answers a replay with its id and prefix and a note", async () => {
    const slug = await environmentWithKey();
    const idempotencyKey = unique("idem");
    const post = () =>
      api<ApiKeyCreated>(ADMIN_KEY, "POST", `/v1/admin/environments/${slug}/keys`, { name: "ci" }, withKey(idempotencyKey));
    const first = await post();
    expect(first.body.key).toMatch(/^ck_/);
    expect(await storedBody(idempotencyKey)).not.toContain(first.body.key);
    const replay = await post();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    const { key: secret, ...rest } = first.body;
    expect(replay.body).toEqual({ ...rest, secretsOmitted: ["key"], note: expect.stringContaining("not shown again") });
    expect(JSON.stringify(replay.body)).not.toContain(secret);
    const { body: keys } = await api<ApiKeyList>(ADMIN_KEY, "GET", `/v1/admin/environments/${slug}/keys`);
    expect(keys.data.map((k) => k.id)).toEqual([first.body.id]);
  });

  it("never stores a rotated key's secret either", async () => {
    const slug = await environmentWithKey();
    const { body: old } = await api<ApiKeyCreated>(ADMIN_KEY, "POST", `/v1/admin/environments/${slug}/keys`, { name: "ci" });
    const idempotencyKey = unique("idem");
    const rotate = () => api<Rotation>(ADMIN_KEY, "POST", `/v1/admin/keys/${old.id}/rotate`, { overlapHours: 1 }, withKey(idempotencyKey));
    const first = await rotate();
    expect(first.status).toBe(201);
    expect(await storedBody(idempotencyKey)).not.toContain(first.body.key.key);
    const replay = await rotate();
    const { key: secret, ...fresh } = first.body.key;
    expect(replay.body).toEqual({ key: fresh, previous: first.body.previous, secretsOmitted: ["key.key"], note: expect.any(String) });
    expect(JSON.stringify(replay.body)).not.toContain(secret);
  });

  it("documents the replay: the same answer without the secret, with secretsOmitted", async () => {
    const doc = (await (await SELF.fetch("http://clarion.test/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>;
    };
    const schema = doc.paths["/v1/admin/environments/{slug}/keys"]!.post!.responses["201"]!.content["application/json"]!.schema as {
      anyOf?: { $ref?: string; properties?: Record<string, unknown>; required?: string[] }[];
    };
    expect(schema.anyOf).toHaveLength(2);
    const replay = schema.anyOf!.find((s) => s.properties)!;
    expect(Object.keys(replay.properties!)).toEqual(expect.arrayContaining(["id", "prefix", "secretsOmitted", "note"]));
    expect(Object.keys(replay.properties!)).not.toContain("key");
  });
});
