// Fetch steps end to end against the fake provider server: the answer is read by later
// conditions and templates, retries come back to the step from the run's home (driven with
// deliverWaitsDue, never by sleeping), a failure halts or goes on, the destination policy holds
// at save and at run time, secrets never leave the request, and a recorded answer is never asked for twice.
import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { DeliveryOp } from "../../src/durable-objects/ledger/claims";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { Message } from "../../src/features/messages/schemas";
import worker from "../../src/index";
import { createSandboxEnvironment, fakeProviderScenario, unique } from "../factories";
import { recordedOutcomes, workflowWith } from "./helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { acceptThenCrash, deliverHeldJobs, deliverWaitsDue, ledgerOf } from "../ledger";
import { loggedEvents } from "../log";
import { api } from "../request";

const sms = (id: string, body = id, extra: Record<string, unknown> = {}) => ({ id, type: "sms", template: { body }, ...extra });
const person = () => ({ subscriberId: unique("s"), email: "h@example.com", phone: "+41791234567" });

const setUp = (steps: unknown[]) => workflowWith(steps, "http");
const recorded = recordedOutcomes;

const outcomeOf = async (environmentId: string, transactionId: string, stepId: string) =>
  (await recorded(environmentId, transactionId)).find((r) => r.step === stepId)?.outcome;

const fetchStep = (url: string, extra: Record<string, unknown> = {}) => ({
  id: "lookup",
  type: "http",
  request: { method: "POST", url, body: { user: "{{ subscriber.subscriberId }}", plan: "{{ payload.plan }}", n: 3 } },
  ...extra,
});

afterEach(() => vi.restoreAllMocks());

/** The Worker's bindings with every ledger failing the delivery operations that claim a send: a crash between two steps. */
function crashingBeforeClaims(): typeof env {
  const ledgers = env.LEDGERS;
  const run = (stub: DurableObjectStub<TriggerLedger>) => async (ops: DeliveryOp[]) => {
    if (ops.some((op) => op.kind === "claim")) throw new Error("simulated crash");
    return stub.run(ops);
  };
  const LEDGERS = {
    idFromName: (name: string) => ledgers.idFromName(name),
    get: (id: DurableObjectId) =>
      new Proxy(ledgers.get(id), { get: (stub, method) => (method === "run" ? run(stub) : Reflect.get(stub, method)) }),
  } as unknown as typeof ledgers;
  return { ...env, LEDGERS };
}

describe("fetch steps", () => {
  it("sends the rendered request; later branches and templates read the answer", async () => {
    const provider = fakeProviderScenario();
    await provider.script([
      { status: 200, headers: { "x-clarion-tier": "gold", "set-cookie": "a=b" }, body: { plan: "pro", total: 5000 } },
    ]);
    const { id, key, workflow } = await setUp([
      fetchStep(`${provider.baseUrl}/users/{{ subscriber.subscriberId }}`),
      {
        id: "route",
        type: "branch",
        paths: [
          {
            id: "pro",
            if: { field: "steps.lookup.response.body.plan", op: "eq", value: "pro" },
            steps: [sms("pro-sms", "{{ steps.lookup.response.body.total }} {{ steps.lookup.response.headers['x-clarion-tier'] }}")],
          },
        ],
        default: { steps: [sms("plain-sms")] },
      },
    ]);
    const to = person();
    const tx = await triggerDelivered(key, { workflow, to, payload: { plan: "basic" } });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "pro-sms", preview: "5000 gold" });

    const [call, ...more] = await provider.captured();
    expect(more).toEqual([]);
    expect(call).toMatchObject({ method: "POST", path: `/users/${to.subscriberId}` });
    expect(call!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(call!.body)).toEqual({ user: to.subscriberId, plan: "basic", n: 3 });

    const outcome = await outcomeOf(id, tx, "lookup");
    expect(outcome).toMatchObject({
      status: "ran",
      response: { status: 200, body: { plan: "pro", total: 5000 } },
      detail: { attempts: 1 },
    });
    // Allow-listed headers only: a cookie never reaches later steps or the run's home.
    expect(outcome!.response).toMatchObject({ headers: { "content-type": "application/json", "x-clarion-tier": "gold" } });
    expect(Object.keys((outcome!.response as { headers: object }).headers)).not.toContain("set-cookie");
  });

  it("tries again at once, then parks the recipient for 30 s and comes back to the step", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 503 }, { status: 503 }, { status: 200, body: { ok: true } }]);
    const { id, key, workflow } = await setUp([
      fetchStep(`${provider.baseUrl}/flaky`),
      sms("after", "ok={{ steps.lookup.response.body.ok }}"),
    ]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    expect(await provider.captured()).toHaveLength(2);
    const parked = await outcomeOf(id, tx, "lookup");
    expect(parked).toMatchObject({ status: "retrying", detail: { attempts: 2, error: "HTTP 503" } });
    const wait = Date.parse(String(parked!.until)) - Date.now();
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
    await expect(deliveredMessages(key, tx, 0)).resolves.toEqual([]);

    await deliverWaitsDue(id, tx, Date.now() + 31_000);
    expect(await provider.captured()).toHaveLength(3);
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({ status: "ran", response: { status: 200 }, detail: { attempts: 3 } });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "after", preview: "ok=true" });
  });

  it("gives up on an attempt after timeoutMs and tries it again", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, body: {}, delayMs: 1500 }]);
    const { id, key, workflow } = await setUp([fetchStep(`${provider.baseUrl}/slow`, { timeoutMs: 200 }), sms("after")]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({
      status: "retrying",
      detail: { attempts: 2, error: "No answer within 200 ms." },
    });
  });

  it("fetches for a chunk's recipients in parallel", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, body: { ok: true }, delayMs: 1500 }]);
    const { key, workflow } = await setUp([fetchStep(`${provider.baseUrl}/slow`), sms("after")]);
    const started = Date.now();
    const tx = await triggerDelivered(key, { workflow, to: [person(), person(), person(), person()] });
    // One after the other, four answers would take 6 s.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await provider.captured()).toHaveLength(4);
    expect((await deliveredMessages(key, tx, 4)).every((m) => m.stepId === "after")).toBe(true);
  });

  /** Drives a fetch that always fails through its four attempts: now, at once, 30 s later, 60 s after that. */
  async function exhaust(environmentId: string, tx: string) {
    await deliverWaitsDue(environmentId, tx, Date.now() + 31_000);
    expect(await outcomeOf(environmentId, tx, "lookup")).toMatchObject({ status: "retrying", detail: { attempts: 3 } });
    await deliverWaitsDue(environmentId, tx, Date.now() + 61_000);
  }

  it("halts after the last attempt: the recipient's later steps are failed with http_failed", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 500, body: { error: "down" } }]);
    const { id, key, workflow } = await setUp([fetchStep(`${provider.baseUrl}/down`), sms("after"), sms("later")]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    await exhaust(id, tx);
    expect(await provider.captured()).toHaveLength(4);
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({
      status: "failed",
      reason: "http_failed",
      response: { status: 500, body: { error: "down" } },
      detail: { attempts: 4, error: "HTTP 500" },
    });
    const messages = await deliveredMessages(key, tx, 2);
    expect(messages.map((m) => [m.stepId, m.status, m.error?.code]).sort()).toEqual([
      ["after", "failed", "http_failed"],
      ["later", "failed", "http_failed"],
    ]);
  });

  it("goes on after the last attempt with onError continue; later conditions read the failure", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 502 }]);
    const { id, key, workflow } = await setUp([
      fetchStep(`${provider.baseUrl}/down`, { onError: "continue" }),
      sms("fallback", "fallback", { if: { field: "steps.lookup.status", op: "eq", value: "failed" } }),
      sms("happy", "happy", { if: { field: "steps.lookup.status", op: "eq", value: "ran" } }),
    ]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    await exhaust(id, tx);
    const messages = await deliveredMessages(key, tx, 2);
    expect(Object.fromEntries(messages.map((m) => [m.stepId, m.status]))).toMatchObject({ fallback: "sent", happy: "skipped" });
  });

  it("takes a 4xx as the answer: not tried again, failed, its response readable by later steps", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 404, body: { error: "no such user" } }]);
    const { id, key, workflow } = await setUp([
      fetchStep(`${provider.baseUrl}/missing`, { onError: "continue" }),
      sms("gone", "{{ steps.lookup.response.body.error }}", { if: { field: "steps.lookup.response.status", op: "eq", value: 404 } }),
    ]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    expect(await provider.captured()).toHaveLength(1);
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({ status: "failed", reason: "http_failed", response: { status: 404 } });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "gone", status: "sent", preview: "no such user" });
  });

  it("fails a JSON answer over 256 KB with response_too_large, keeping its status and headers", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, body: { blob: "x".repeat(300 * 1024) } }]);
    const { id, key, workflow } = await setUp([fetchStep(`${provider.baseUrl}/big`), sms("after")]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    expect(await provider.captured()).toHaveLength(1);
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({
      status: "failed",
      reason: "response_too_large",
      response: { status: 200, headers: { "content-type": "application/json" }, body: null },
    });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "after", status: "failed", error: { code: "http_failed" } });
  });

  it("keeps an answer that is not JSON as text, cut to 4,096 characters", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, headers: { "content-type": "text/plain" }, body: "y".repeat(10_000) }]);
    const { id, key, workflow } = await setUp([fetchStep(`${provider.baseUrl}/text`)]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    const outcome = await outcomeOf(id, tx, "lookup");
    expect(outcome).toMatchObject({ status: "ran", response: { status: 200 } });
    expect((outcome!.response as { body: string }).body).toBe("y".repeat(4096));
  });

  it("fails a request it cannot build without calling, naming the header but never its value", async () => {
    const provider = fakeProviderScenario();
    const { id, key, workflow } = await setUp([
      { id: "lookup", type: "http", request: { method: "GET", url: `${provider.baseUrl}/h`, headers: { "x-name": "{{ payload.name }}" } } },
    ]);
    const tx = await triggerDelivered(key, { workflow, to: person(), payload: { name: "snow \u0000 man" } });
    expect(await provider.captured()).toEqual([]);
    const outcome = await outcomeOf(id, tx, "lookup");
    expect(outcome).toMatchObject({
      status: "failed",
      reason: "render_failed",
      detail: { attempts: 0, error: expect.stringContaining("headers.x-name") },
    });
    expect(JSON.stringify(outcome)).not.toContain("snow");
  });

  it("refuses a rendered destination the policy forbids, without calling it", async () => {
    const { id, key, workflow } = await setUp([fetchStep("{{ payload.target }}/latest/meta-data"), sms("after")]);
    const tx = await triggerDelivered(key, { workflow, to: person(), payload: { target: "http://169.254.169.254" } });
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({
      status: "failed",
      reason: "destination_not_allowed",
      detail: { attempts: 0, error: expect.stringContaining("link-local") },
    });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "after", status: "failed", error: { code: "http_failed" } });
  });

  it("refuses a literal destination the policy forbids when the workflow is saved", async () => {
    const { key } = await createSandboxEnvironment();
    const nested = {
      id: "route",
      type: "branch",
      paths: [{ id: "p", if: { field: "payload.x", op: "exists" }, steps: [fetchStep("http://169.254.169.254/latest/meta-data")] }],
    };
    const res = await api<{ code: string; errors: { path: string }[] }>(key, "POST", "/v1/workflows", {
      key: unique("blocked").toLowerCase(),
      name: "Blocked",
      steps: [nested],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code, JSON.stringify(res.body)).toBe("destination_not_allowed");
    expect(res.body.errors.map((e) => e.path)).toEqual(["steps.0.paths.0.steps.0.request.url"]);
    // With Liquid, the URL is judged once rendered.
    const templated = await api(key, "POST", "/v1/workflows", {
      key: unique("tpl").toLowerCase(),
      name: "Templated",
      steps: [fetchStep("{{ payload.url }}")],
    });
    expect(templated.status).toBe(201);
  });

  it("keeps a secret used in a header out of every message, timeline, recorded outcome and log line", async () => {
    const SECRET = `tok-${crypto.randomUUID()}`;
    const provider = fakeProviderScenario();
    // An endpoint that echoes what it was sent: the secret comes back in the answer.
    await provider.script([{ status: 401, body: { echo: `Bearer ${SECRET}`, hint: SECRET } }]);
    const { id, key, workflow } = await setUp([
      {
        id: "lookup",
        type: "http",
        request: {
          method: "GET",
          url: `${provider.baseUrl}/who?key={{ vars.API_TOKEN }}`,
          headers: { authorization: "Bearer {{ vars.API_TOKEN }}" },
        },
      },
      sms("after", "{{ steps.lookup.response.body.hint }}"),
    ]);
    expect((await api(key, "POST", "/v1/variables", { key: "API_TOKEN", value: SECRET, secret: true })).status).toBe(201);
    const lines: string[] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    const tx = await triggerDelivered(key, { workflow, to: person() });
    vi.restoreAllMocks();

    const [call] = await provider.captured();
    expect(call!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "after", status: "failed", error: { code: "http_failed" } });
    const rows = await recorded(id, tx);
    expect(rows.find((r) => r.step === "lookup")?.outcome).toMatchObject({
      status: "failed",
      response: { status: 401, body: { echo: "Bearer [secret]", hint: "[secret]" } },
      detail: { url: expect.stringContaining("key=[secret]") },
    });
    const detail = await api(key, "GET", `/v1/messages/${(message as Message).id}`);
    const run = await api(key, "GET", `/v1/trigger/${encodeURIComponent(tx)}`);
    const everything = JSON.stringify([
      rows.map((r) => r.raw),
      await api(key, "GET", `/v1/messages?transactionId=${encodeURIComponent(tx)}`),
      detail.body,
      run.body,
      await loggedEvents(id),
      lines,
    ]);
    expect(everything).not.toContain(SECRET);
  });

  it("never calls again once an answer is recorded, when the run crashed after it and its job runs again", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, body: { n: 1 } }]);
    const { id, key, workflow } = await setUp([
      fetchStep(`${provider.baseUrl}/once`),
      sms("after", "n={{ steps.lookup.response.body.n }}"),
    ]);
    const { transactionId: tx } = await acceptThenCrash(id, workflow, person());
    const jobs = await runInDurableObject(ledgerOf(id, tx), (_l: TriggerLedger, state) =>
      state.storage.sql
        .exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ?", tx)
        .toArray()
        .map((r) => JSON.parse(r.job) as unknown),
    );
    // The consumer dies once the answer is recorded, before the next step claims its send.
    await expect(deliverHeldJobs(id, tx, crashingBeforeClaims())).rejects.toThrow(/retry/);
    expect(await provider.captured()).toHaveLength(1);
    expect(await outcomeOf(id, tx, "lookup")).toMatchObject({ status: "ran" });
    // The Queue hands the same job again, as it does when a consumer died before its ack.
    const batch = createMessageBatch(
      "clarion-delivery-0",
      jobs.map((body, i) => ({ id: `again-${tx}-${i}`, timestamp: new Date(), attempts: 2, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    await getQueueResult(batch, ctx);
    expect(await provider.captured()).toHaveLength(1);
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message).toMatchObject({ stepId: "after", preview: "n=1" });
  });
});
