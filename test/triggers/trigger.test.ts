import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { acceptThenCrash, deliverHeldJobs, outboxWrites, readTrigger, startTriggers } from "../ledger";
import {
  LIVE_TRIGGER_STATUSES,
  countTriggerRows,
  createEnvironment,
  createEnvironmentWithWorkflow,
  createWorkflow,
  postTrigger,
  subscriberRow,
  triggerRow,
  unique,
} from "../factories";
import { api, errorPaths, expectProblem } from "../request";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const trigger = (key: string, body: unknown, path = "/v1/trigger/") => postTrigger(key, body, path);

const readDurable = readTrigger;

const createTopic = async (key: string, topic: string) => {
  const res = await api(key, "POST", "/v1/topics", { key: topic, name: topic });
  if (res.status !== 201) throw new Error(`topic not created: ${res.status}`);
};

describe("POST /v1/trigger/", () => {
  it("answers 202 with the accepted body", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await trigger(key, { workflow: workflowKey, to: "user-1", payload: { orderId: "o-1" } });
    expect(res.status).toBe(202);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({ acknowledged: true, status: "accepted", transactionId: expect.any(String) });
  });

  it("generates a UUIDv7 transactionId when none is given", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const before = Date.now();
    const res = await trigger(key, { workflow: workflowKey, to: "user-1" });
    expect(res.status).toBe(202);
    expect(res.body.transactionId).toMatch(UUID_V7);
    const millis = parseInt(res.body.transactionId.replaceAll("-", "").slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before - 1000);
    expect(millis).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("keeps the transactionId the caller gives", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    const res = await trigger(key, { workflow: workflowKey, to: "user-1", transactionId });
    expect(res.status).toBe(202);
    expect(res.body.transactionId).toBe(transactionId);
  });

  it("accepts `name` as an alias of `workflow`", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await trigger(key, { name: workflowKey, to: "user-1" });
    expect(res.status).toBe(202);
    expect((await readDurable(id, res.body.transactionId))?.workflowKey).toBe(workflowKey);
  });

  it.each(["/v1/trigger", "/v1/trigger/"])("answers at %s", async (path) => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await trigger(key, { workflow: workflowKey, to: "user-1" }, path);
    expect(res.status).toBe(202);
    expect(res.body.acknowledged).toBe(true);
  });

  describe("recipients", () => {
    it("accepts a subscriberId string", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, { workflow: workflowKey, to: "user-1" });
      expect(res.status).toBe(202);
      expect((await readDurable(id, res.body.transactionId))?.recipients).toEqual(["user-1"]);
    });

    it("upserts an inline subscriber object once the consumer has run", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const subscriberId = unique("inline");
      const res = await trigger(key, {
        workflow: workflowKey,
        to: { subscriberId, email: "inline@example.com", firstName: "Ines", phone: "+41791234567" },
      });
      expect(res.status).toBe(202);
      expect(res.body.invalidRecipients).toBeUndefined();
      await startTriggers(id, [res.body.transactionId]);
      const row = await subscriberRow(id, subscriberId);
      expect(row).toMatchObject({ email: "inline@example.com", first_name: "Ines", phone: "+41791234567" });
    });

    it("accepts an array of recipients", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      await createTopic(key, "news");
      const res = await trigger(key, { workflow: workflowKey, to: ["user-1", { subscriberId: "user-2" }, { topic: "news" }] });
      expect(res.status).toBe(202);
      expect(res.body.invalidRecipients).toBeUndefined();
      expect((await readDurable(id, res.body.transactionId))?.recipients).toEqual([
        "user-1",
        { subscriberId: "user-2" },
        { topic: "news" },
      ]);
    });

    it("accepts a topic as { topic }", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      await createTopic(key, "release-notes");
      const res = await trigger(key, { workflow: workflowKey, to: { topic: "release-notes", exclude: ["user-9"] } });
      expect(res.status).toBe(202);
      expect((await readDurable(id, res.body.transactionId))?.recipients).toEqual([{ topic: "release-notes", exclude: ["user-9"] }]);
    });

    it("takes no Novu vocabulary: { type: 'Topic', topicKey } is an invalid recipient (Novu's form is /novu's)", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      await createTopic(key, "release-notes");
      const res = await trigger(key, { workflow: workflowKey, to: ["user-1", { type: "Topic", topicKey: "release-notes" }] });
      expect(res.status).toBe(202);
      expect(res.body.invalidRecipients).toEqual([{ index: 1, subscriberId: null, errors: expect.any(Array) }]);
    });

    it("reports invalid recipients by index and accepts the valid ones", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, {
        workflow: workflowKey,
        to: ["user-1", { subscriberId: "user-2", email: "not-an-email" }, "user-3", { subscriberId: "user-4", phone: "0791234567" }],
      });
      expect(res.status).toBe(202);
      expect(res.body.invalidRecipients).toEqual([
        { index: 1, subscriberId: "user-2", errors: [expect.objectContaining({ path: expect.stringContaining("email") })] },
        { index: 3, subscriberId: "user-4", errors: [expect.objectContaining({ path: expect.stringContaining("phone") })] },
      ]);
      expect((await readDurable(id, res.body.transactionId))?.recipients).toEqual(["user-1", "user-3"]);
    });

    it.each([
      ["{ topic }", { topic: "no-such-topic" }],
      ["a list of unknown topics", [{ topic: "no-such-topic" }, { topic: "nor-this-one" }]],
    ])("answers 404 topic_not_found for an unknown topic as %s, and stores nothing", async (_, to) => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const transactionId = unique("txn");
      const res = await trigger(key, { workflow: workflowKey, to, transactionId });
      const problem = expectProblem(res, 404, "topic_not_found");
      expect(problem.detail).toContain('"no-such-topic"');
      expect(await readDurable(id, transactionId)).toBeNull();
    });

    it("does not see a topic of another environment", async () => {
      const owner = await createEnvironment();
      await createTopic(owner.key, "shared-name");
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      expectProblem(await trigger(key, { workflow: workflowKey, to: { topic: "shared-name" } }), 404, "topic_not_found");
    });

    it("reports an unknown topic among other recipients in invalidRecipients and accepts the rest", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      await createTopic(key, "known");
      const res = await trigger(key, { workflow: workflowKey, to: ["user-1", { topic: "no-such-topic" }, { topic: "known" }] });
      expect(res.status).toBe(202);
      expect(res.body.invalidRecipients).toEqual([
        {
          index: 1,
          subscriberId: null,
          topic: "no-such-topic",
          errors: [{ path: "topic", message: expect.stringContaining("no-such-topic") }],
        },
      ]);
      expect((await readDurable(id, res.body.transactionId))?.recipients).toEqual(["user-1", { topic: "known" }]);
    });

    it("answers 422 no_valid_recipients when an unknown topic comes with invalid subscribers only", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, {
        workflow: workflowKey,
        to: [{ topic: "no-such-topic" }, { subscriberId: "user-2", email: "nope" }],
      });
      expectProblem(res, 422, "no_valid_recipients");
    });

    it("rejects a trigger whose recipients are all invalid with 422 no_valid_recipients", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, { workflow: workflowKey, to: [{ subscriberId: "user-2", email: "nope" }, "   "] });
      const problem = expectProblem(res, 422, "no_valid_recipients");
      expect(errorPaths(problem)).toEqual([expect.stringMatching(/^to\.0\./), expect.stringMatching(/^to\.1\b/)]);
    });

    it("accepts exactly 100 recipients", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const to = Array.from({ length: 100 }, (_, i) => `user-${i}`);
      const res = await trigger(key, { workflow: workflowKey, to });
      expect(res.status).toBe(202);
      expect((await readDurable(id, res.body.transactionId))?.recipients).toHaveLength(100);
    });

    it("rejects more than 100 recipients with 422 validation_failed", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const to = Array.from({ length: 101 }, (_, i) => `user-${i}`);
      const problem = expectProblem(await trigger(key, { workflow: workflowKey, to }), 422, "validation_failed");
      expect(errorPaths(problem)).toContain("to");
    });
  });

  describe("workflow gate", () => {
    it("rejects an unknown workflow with 404 workflow_not_found", async () => {
      const { key } = await createEnvironment();
      expectProblem(await trigger(key, { workflow: "no-such-workflow", to: "user-1" }), 404, "workflow_not_found");
    });

    it("rejects an inactive workflow with 422 workflow_inactive", async () => {
      const { key } = await createEnvironment();
      const { key: workflowKey } = await createWorkflow(key, { active: false });
      expectProblem(await trigger(key, { workflow: workflowKey, to: "user-1" }), 422, "workflow_inactive");
    });

    it("rejects a payload that violates the workflow's JSON Schema with field paths", async () => {
      const { key } = await createEnvironment();
      const { key: workflowKey } = await createWorkflow(key, {
        payloadSchema: {
          type: "object",
          properties: { orderId: { type: "string" }, total: { type: "number" } },
          required: ["orderId"],
        },
      });
      const res = await trigger(key, { workflow: workflowKey, to: "user-1", payload: { orderId: 42, total: 10 } });
      const problem = expectProblem(res, 422, "validation_failed");
      expect(errorPaths(problem)).toEqual(["payload.orderId"]);
    });

    it("accepts a payload that satisfies the workflow's JSON Schema", async () => {
      const { key } = await createEnvironment();
      const { key: workflowKey } = await createWorkflow(key, {
        payloadSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
      });
      expect((await trigger(key, { workflow: workflowKey, to: "user-1", payload: { orderId: "o-1" } })).status).toBe(202);
    });
  });

  describe("size limits", () => {
    it("rejects a payload over 512 KiB with 413 payload_too_large", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, { workflow: workflowKey, to: "user-1", payload: { blob: "x".repeat(512 * 1024) } });
      expectProblem(res, 413, "payload_too_large");
    });

    it("accepts a payload just under 512 KiB and records it", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const blob = "x".repeat(512 * 1024 - 100);
      const res = await trigger(key, { workflow: workflowKey, to: "user-1", payload: { blob } });
      expect(res.status).toBe(202);
      expect((await readDurable(id, res.body.transactionId))?.payload).toEqual({ blob });
      await startTriggers(id, [res.body.transactionId]);
      const row = (await triggerRow(id, res.body.transactionId))!;
      expect(JSON.parse(row.payload)).toEqual({ blob });
    });

    it("rejects a request body over 1 MiB with 413 payload_too_large", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, { workflow: workflowKey, to: "user-1", overrides: { blob: "x".repeat(1024 * 1024) } });
      expectProblem(res, 413, "payload_too_large");
    });
  });

  describe("body limits without Content-Length", () => {
    it("rejects a streamed body over 1 MiB with 413 payload_too_large", async () => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const text = JSON.stringify({ workflow: workflowKey, to: "user-1", overrides: { blob: "x".repeat(1024 * 1024) } });
      const bytes = new TextEncoder().encode(text);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
          controller.close();
        },
      });
      const res = await SELF.fetch("http://clarion.test/v1/trigger/", {
        method: "POST",
        headers: { authorization: `ApiKey ${key}`, "content-type": "application/json" },
        body,
      });
      expectProblem({ status: res.status, headers: res.headers, body: await res.json() }, 413, "payload_too_large");
    });
  });

  it.each(["application/json; charset=utf-8", "application/vnd.api+json"])("accepts the JSON content type %s", async (contentType) => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await api(
      key,
      "POST",
      "/v1/trigger/",
      { workflow: workflowKey, to: "user-1" },
      { headers: { "content-type": contentType } },
    );
    expect(res.status).toBe(202);
  });

  describe("malformed requests", () => {
    it.each(["text/plain", "application/x-www-form-urlencoded"])("rejects content type %s with 415", async (contentType) => {
      const { key, workflowKey } = await createEnvironmentWithWorkflow();
      const res = await api(key, "POST", "/v1/trigger/", undefined, {
        rawBody: JSON.stringify({ workflow: workflowKey, to: "user-1" }),
        headers: { "content-type": contentType },
      });
      expectProblem(res, 415, "unsupported_media_type");
    });

    it.each([
      ["`to` is a number", { workflow: "wf", to: 42 }, "to"],
      ["`to` is missing", { workflow: "wf" }, "to"],
      ["`to` is an empty array", { workflow: "wf", to: [] }, "to"],
      ["`workflow` is a number", { workflow: 5, to: "user-1" }, "workflow"],
      ["neither `workflow` nor `name`", { to: "user-1" }, "workflow"],
      ["`payload` is a string", { workflow: "wf", to: "user-1", payload: "hello" }, "payload"],
      ["`payload` is an array", { workflow: "wf", to: "user-1", payload: [1, 2] }, "payload"],
      ["`overrides` is a number", { workflow: "wf", to: "user-1", overrides: 1 }, "overrides"],
      ["`transactionId` has spaces", { workflow: "wf", to: "user-1", transactionId: "has spaces" }, "transactionId"],
      ["`transactionId` is too long", { workflow: "wf", to: "user-1", transactionId: "a".repeat(129) }, "transactionId"],
      ["`actor` is a number", { workflow: "wf", to: "user-1", actor: 7 }, "actor"],
    ])("rejects a body where %s with 422 validation_failed", async (_label, body, path) => {
      const { key } = await createEnvironment();
      const problem = expectProblem(await trigger(key, body), 422, "validation_failed");
      expect(errorPaths(problem)).toContain(path);
    });

    it("rejects an unknown top-level field with 422 validation_failed", async () => {
      const { key } = await createEnvironment();
      const res = await trigger(key, { workflow: "wf", to: "user-1", bogus: true });
      expectProblem(res, 422, "validation_failed");
    });

    it("rejects a body that is not an object with 422 validation_failed", async () => {
      const { key } = await createEnvironment();
      expectProblem(await trigger(key, ["not", "an", "object"]), 422, "validation_failed");
    });
  });

  describe("idempotency", () => {
    it("answers a replay of the same body with the same 202", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const body = { workflow: workflowKey, to: ["user-1", "user-2"], payload: { a: 1, b: { c: 2 } }, transactionId: unique("txn") };
      const first = await trigger(key, body);
      const replay = await trigger(key, { ...body, payload: { b: { c: 2 }, a: 1 } });
      expect(first.status).toBe(202);
      expect(replay.status).toBe(202);
      expect(replay.body).toEqual(first.body);
      await startTriggers(id, [body.transactionId]);
      expect(await countTriggerRows(id, body.transactionId)).toBe(1);
    });

    it("does not process a replayed trigger a second time", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const body = { workflow: workflowKey, to: "user-1", transactionId: unique("txn") };
      // Accepted as the API accepts it, then delivered to the end: its record is final.
      await acceptThenCrash(id, workflowKey, body.to, { transactionId: body.transactionId });
      await deliverHeldJobs(id, body.transactionId);
      const processed = (await triggerRow(id, body.transactionId))!;
      expect(processed.status).toBe("completed");
      const written = await outboxWrites(id, body.transactionId);
      expect((await trigger(key, body)).status).toBe(202);
      // The 202 comes once the ledger has written what it will send: a replay processed again would have written a job.
      expect(await outboxWrites(id, body.transactionId)).toBe(written);
      const after = await triggerRow(id, body.transactionId);
      expect(after?.updated_at).toBe(processed.updated_at);
      expect(await countTriggerRows(id, body.transactionId)).toBe(1);
    });

    it("rejects a reused transactionId with a different body with 409 transaction_conflict", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      const transactionId = unique("txn");
      expect((await trigger(key, { workflow: workflowKey, to: "user-1", transactionId, payload: { n: 1 } })).status).toBe(202);
      const res = await trigger(key, { workflow: workflowKey, to: "user-1", transactionId, payload: { n: 2 } });
      expectProblem(res, 409, "transaction_conflict");
      expect((await readDurable(id, transactionId))?.payload).toEqual({ n: 1 });
    });

    it("scopes transactionIds to the environment", async () => {
      const a = await createEnvironmentWithWorkflow();
      const b = await createEnvironment();
      await createWorkflow(b.key, { key: a.workflowKey });
      const transactionId = unique("txn");
      expect((await trigger(a.key, { workflow: a.workflowKey, to: "user-1", transactionId, payload: { n: 1 } })).status).toBe(202);
      expect((await trigger(b.key, { workflow: a.workflowKey, to: "user-1", transactionId, payload: { n: 2 } })).status).toBe(202);
    });
  });

  describe("durability", () => {
    it("makes an accepted trigger readable from its Durable Object", async () => {
      const { id, key, workflowKey, workflowId } = await createEnvironmentWithWorkflow();
      const res = await trigger(key, {
        workflow: workflowKey,
        to: ["user-1"],
        payload: { orderId: "o-7" },
        overrides: { email: { from: "shop@example.com" } },
        actor: "admin-1",
      });
      expect(res.status).toBe(202);
      expect(await readTrigger(id, res.body.transactionId)).toEqual({
        environmentId: id,
        transactionId: res.body.transactionId,
        workflowKey,
        workflowId,
        workflowVersion: 1,
        contentStamp: 0,
        recipients: ["user-1"],
        payload: { orderId: "o-7" },
        overrides: { email: { from: "shop@example.com" } },
        actor: "admin-1",
        acceptedAt: expect.any(Number),
        // Its messages are only in the log: delivery reads nothing of it from D1's older messages.
        messagesInLog: true,
        plannedSteps: 1,
        // No brand or translations saved: version and revision 0, the default locale.
        brandVersion: 0,
        translationsRevision: 0,
        defaultLocale: "en",
        state: expect.stringMatching(/^(accepted|completed)$/),
        ledger: expect.stringMatching(/^v1\/32\/\d+$/),
        coordinated: false,
      });
    });

    it("records an accepted trigger in the D1 triggers table once the consumer has run", async () => {
      const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
      await createTopic(key, "t-1");
      const res = await trigger(key, { workflow: workflowKey, to: ["user-1", { topic: "t-1" }], payload: { orderId: "o-8" } });
      expect(res.status).toBe(202);
      await startTriggers(id, [res.body.transactionId]);
      const row = (await triggerRow(id, res.body.transactionId))!;
      expect(row.workflow_key).toBe(workflowKey);
      expect(LIVE_TRIGGER_STATUSES).toContain(row.status);
      expect(JSON.parse(row.recipients)).toEqual(["user-1", { topic: "t-1" }]);
      expect(JSON.parse(row.payload)).toEqual({ orderId: "o-8" });
    });

    it("does not store a rejected trigger", async () => {
      const { id, key } = await createEnvironment();
      const transactionId = unique("txn");
      expectProblem(await trigger(key, { workflow: "missing", to: "user-1", transactionId }), 404, "workflow_not_found");
      expect(await readDurable(id, transactionId)).toBeNull();
    });
  });
});
