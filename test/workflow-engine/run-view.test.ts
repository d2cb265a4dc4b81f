// The run view of GET /v1/trigger/{transactionId}: per recipient, the path its run took and each
// step on it in run order, read from its messages, the control steps' outcomes recorded in the
// run's home and the waits parked there. Steps on paths not taken never show.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { workflowWith } from "./helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { deliverWaitsDue, ledgerOf } from "../ledger";

const mail = (id: string) => ({ id, type: "email", template: { subject: id, text: `Hello from ${id}` } });
const text = (id: string) => ({ id, type: "sms", template: { body: id } });
const person = (data: Record<string, unknown> = {}) => ({ subscriberId: unique("s"), email: "b@example.com", phone: "+41791234567", data });

const STEPS = [
  mail("first"),
  // Skipped by its own condition: recorded with its reason, and none of its paths is shown.
  {
    id: "gate",
    type: "branch",
    if: { field: "payload.flag", op: "eq", value: true },
    paths: [{ id: "flagged", if: { field: "payload.flag", op: "eq", value: true }, steps: [mail("flagged-mail")] }],
  },
  {
    id: "route",
    type: "branch",
    paths: [
      {
        id: "vip",
        if: { field: "subscriber.data.vip", op: "eq", value: true },
        steps: [text("vip-sms"), { id: "pause", type: "delay", for: "PT1H" }, mail("vip-mail")],
      },
    ],
    default: { steps: [mail("plain-mail")] },
  },
  mail("after"),
];

const setUp = (steps: unknown[]) => workflowWith(steps, "rv");

const status = (key: string, tx: string, query = "") => api<TriggerStatusView>(key, "GET", `/v1/trigger/${encodeURIComponent(tx)}${query}`);

/** A run's steps as [stepId, status] pairs, in the order shown. */
const shown = (steps: { stepId: string; status: string }[]) => steps.map((s) => [s.stepId, s.status]);

describe("GET /v1/trigger/{transactionId} runs", () => {
  it("shows the branch's path, the sent steps and a delay waiting until its end; the rest once the wait is released", async () => {
    const { id, key, workflow } = await setUp(STEPS);
    const before = Date.now();
    const tx = await triggerDelivered(key, { workflow, to: person({ vip: true }), payload: {} });

    const waiting = await status(key, tx);
    expect(waiting.status).toBe(200);
    expect(waiting.body.runs.outcomesKept).toBe(true);
    const [run] = waiting.body.runs.data;
    expect(run!.path).toEqual([
      { branch: "gate", path: null },
      { branch: "route", path: "vip" },
    ]);
    expect(shown(run!.steps)).toEqual([
      ["first", "sent"],
      ["gate", "skipped"],
      ["route", "ran"],
      ["vip-sms", "sent"],
      ["pause", "waiting"],
      ["vip-mail", "pending"],
      ["after", "pending"],
    ]);
    const steps = new Map(run!.steps.map((s) => [s.stepId, s]));
    expect(steps.get("gate")).toMatchObject({ type: "branch", reason: "condition", depth: 0 });
    expect(steps.get("route")).toMatchObject({ path: "vip", depth: 0 });
    expect(steps.get("vip-sms")).toMatchObject({ type: "sms", depth: 1, messageId: expect.stringMatching(/^msg_/) });
    const pause = steps.get("pause")!;
    expect(pause).toMatchObject({ kind: "delay", depth: 1 });
    expect(Date.parse(pause.until!) - before).toBeGreaterThanOrEqual(3_600_000 - 60_000);
    expect(Date.parse(pause.until!) - before).toBeLessThanOrEqual(3_600_000 + 60_000);

    await deliverWaitsDue(id, tx, Date.now() + 2 * 3_600_000);
    await deliveredMessages(key, tx, 4);
    const done = (await status(key, tx)).body.runs.data[0]!;
    expect(shown(done.steps)).toEqual([
      ["first", "sent"],
      ["gate", "skipped"],
      ["route", "ran"],
      ["vip-sms", "sent"],
      ["pause", "passed"],
      ["vip-mail", "sent"],
      ["after", "sent"],
    ]);
  });

  it("shows the default path taken, never the steps of the path not taken", async () => {
    const { key, workflow } = await setUp(STEPS);
    const tx = await triggerDelivered(key, { workflow, to: person(), payload: {} });
    await deliveredMessages(key, tx, 3);
    const run = (await status(key, tx)).body.runs.data[0]!;
    expect(run.path).toContainEqual({ branch: "route", path: "default" });
    expect(shown(run.steps)).toEqual([
      ["first", "sent"],
      ["gate", "skipped"],
      ["route", "ran"],
      ["plain-mail", "sent"],
      ["after", "sent"],
    ]);
  });

  it("shows a fetch's recorded outcome with its status code only, never its headers or body", async () => {
    const { id, key, workflow } = await setUp([
      { id: "lookup", type: "http", request: { method: "GET", url: "https://api.example.com/plan" }, onError: "continue" },
      mail("after"),
    ]);
    const tx = unique("tx");
    const to = person();
    // The fetch's answer as its home records it; the run reuses a recorded outcome instead of fetching.
    const outcome = {
      status: "failed",
      reason: "http_failed",
      response: { status: 503, headers: { "x-api-token": "tok-SECRET-1" }, body: { error: "down", token: "tok-SECRET-2" } },
      detail: { attempts: 3, echoed: { authorization: "Bearer tok-SECRET-3" } },
    };
    await runInDurableObject(ledgerOf(id, tx), (_l: TriggerLedger, state) => {
      state.storage.sql.exec(
        "INSERT INTO run_steps (env, tx, subscriber_id, step_id, outcome, at) VALUES (?, ?, ?, ?, ?, ?)",
        id,
        tx,
        to.subscriberId,
        "lookup",
        JSON.stringify(outcome),
        Date.now(),
      );
    });
    expect(await triggerDelivered(key, { workflow, to, transactionId: tx })).toBe(tx);
    const res = await status(key, tx);
    const lookup = res.body.runs.data[0]!.steps[0]!;
    expect(lookup).toMatchObject({ stepId: "lookup", type: "http", status: "failed", reason: "http_failed", responseStatus: 503 });
    expect(lookup.detail).toEqual({ attempts: 3 });
    expect(JSON.stringify(res.body)).not.toContain("SECRET");
  });

  it("pages recipients with a cursor, and shows one with ?subscriberId=", async () => {
    const { key, workflow } = await setUp([mail("only")]);
    const people = [person(), person(), person()];
    const tx = await triggerDelivered(key, { workflow, to: people });
    await deliveredMessages(key, tx, 3);
    const first = await status(key, tx, "?limit=2");
    expect(first.body.runs.data).toHaveLength(2);
    const next = await status(key, tx, `?limit=2&cursor=${first.body.runs.nextCursor}`);
    expect(next.body.runs.data).toHaveLength(1);
    expect(next.body.runs.nextCursor).toBeNull();
    const ids = [...first.body.runs.data, ...next.body.runs.data].map((r) => r.subscriberId).sort();
    expect(ids).toEqual(people.map((p) => p.subscriberId).sort());
    const one = await status(key, tx, `?subscriberId=${people[1]!.subscriberId}`);
    expect(one.body.runs.data.map((r) => r.subscriberId)).toEqual([people[1]!.subscriberId]);
    expect((await status(key, tx, "?cursor=nope")).status).toBe(422);
  });

  it("is another environment's 404", async () => {
    const { key, workflow } = await setUp([mail("only")]);
    const tx = await triggerDelivered(key, { workflow, to: person() });
    const other = await createSandboxEnvironment();
    const res = await status(other.key, tx);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "transaction_not_found" });
  });
});
