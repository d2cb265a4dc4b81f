// Branch steps end to end: the first path whose condition holds runs, else the default, else
// nothing; steps on paths not taken leave no message; the choice is recorded once in the run's
// home, so a run resumed after a delay inside a path (or a cancel) follows the same path.
import { describe, expect, it } from "vitest";
import { api } from "../request";
import { unique } from "../factories";
import { recordedOutcomes, workflowWith } from "./helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { deliverHeldJobs, deliverWaitsDue } from "../ledger";

const mail = (id: string) => ({ id, type: "email", template: { subject: id, text: `Hello from ${id}` } });
const text = (id: string) => ({ id, type: "sms", template: { body: id } });
const person = () => ({ subscriberId: unique("s"), email: "b@example.com", phone: "+41791234567" });

const ROUTE = {
  id: "route",
  type: "branch",
  paths: [
    { id: "big", if: { field: "payload.total", op: "gt", value: 1000 }, steps: [text("big-sms")] },
    { id: "vip", if: { field: "subscriber.data.vip", op: "eq", value: true }, steps: [mail("vip-mail")] },
  ],
  default: { steps: [mail("small-mail")] },
};

const setUp = (steps: unknown[]) => workflowWith(steps, "br");

describe("branch steps", () => {
  it("runs the first path whose condition holds, then the steps after the branch", async () => {
    const { id, key, workflow } = await setUp([mail("first"), ROUTE, mail("after")]);
    const tx = await triggerDelivered(key, { workflow, to: person(), payload: { total: 5000 } });
    const messages = await deliveredMessages(key, tx, 3);
    expect(messages.map((m) => m.stepId).sort()).toEqual(["after", "big-sms", "first"]);
    expect(messages.every((m) => m.status === "sent" || m.status === "delivered")).toBe(true);
    const rows = await recordedOutcomes(id, tx);
    expect(rows.map((r) => [r.step, r.outcome])).toEqual([["route", { status: "ran", path: "big" }]]);
  });

  it("tries paths in order: a later path whose condition holds runs when earlier ones do not", async () => {
    const { key, workflow } = await setUp([ROUTE]);
    const tx = await triggerDelivered(key, { workflow, to: { ...person(), data: { vip: true } }, payload: { total: 5 } });
    expect((await deliveredMessages(key, tx, 1)).map((m) => m.stepId)).toEqual(["vip-mail"]);
  });

  it("runs the default when no path's condition holds, and nothing when there is no default", async () => {
    const { key, workflow } = await setUp([ROUTE]);
    const tx = await triggerDelivered(key, { workflow, to: person(), payload: { total: 5 } });
    expect((await deliveredMessages(key, tx, 1)).map((m) => m.stepId)).toEqual(["small-mail"]);
    const bare = await setUp([{ ...ROUTE, default: undefined }, mail("after")]);
    const none = await triggerDelivered(bare.key, { workflow: bare.workflow, to: person(), payload: { total: 5 } });
    expect((await deliveredMessages(bare.key, none, 1)).map((m) => m.stepId)).toEqual(["after"]);
  });

  it("branches on the trigger's tenant (tenant.* in a path's condition)", async () => {
    const { key, workflow } = await setUp([
      {
        id: "route",
        type: "branch",
        paths: [{ id: "vip", if: { field: "tenant.data.plan", op: "eq", value: "vip" }, steps: [mail("vip-mail")] }],
        default: { steps: [mail("plain-mail")] },
      },
    ]);
    expect((await api(key, "POST", "/v1/tenants", { id: "big-co", name: "Big Co", data: { plan: "vip" } })).status).toBe(201);
    const vip = await triggerDelivered(key, { workflow, to: person(), tenant: "big-co" });
    expect((await deliveredMessages(key, vip, 1)).map((m) => m.stepId)).toEqual(["vip-mail"]);
    const plain = await triggerDelivered(key, { workflow, to: person() });
    expect((await deliveredMessages(key, plain, 1)).map((m) => m.stepId)).toEqual(["plain-mail"]);
  });

  it("reads steps.<branch>.path in later conditions", async () => {
    const { key, workflow } = await setUp([ROUTE, { ...text("followup"), if: { field: "steps.route.path", op: "eq", value: "default" } }]);
    const small = await triggerDelivered(key, { workflow, to: person(), payload: { total: 5 } });
    expect((await deliveredMessages(key, small, 2)).map((m) => m.stepId).sort()).toEqual(["followup", "small-mail"]);
    const big = await triggerDelivered(key, { workflow, to: person(), payload: { total: 5000 } });
    const messages = await deliveredMessages(key, big, 2);
    expect(messages.find((m) => m.stepId === "followup")?.status).toBe("skipped");
  });

  it("resumes after a delay inside a path on the same path, even when the payload would now choose another", async () => {
    const { id, key, workflow } = await setUp([
      {
        id: "route",
        type: "branch",
        paths: [
          {
            id: "vip",
            if: { field: "subscriber.data.vip", op: "eq", value: true },
            steps: [{ id: "pause", type: "delay", for: "PT1H" }, mail("vip-mail")],
          },
        ],
        default: { steps: [mail("plain-mail")] },
      },
    ]);
    const to = { ...person(), data: { vip: true } };
    const tx = await triggerDelivered(key, { workflow, to });
    // While it waits the subscriber stops being a VIP: the recorded choice still holds.
    expect((await api(key, "POST", "/sub", { ...to, data: { vip: false } })).status).toBeLessThan(300);
    await deliverWaitsDue(id, tx, Date.now() + 2 * 3_600_000);
    expect((await deliveredMessages(key, tx, 1)).map((m) => m.stepId)).toEqual(["vip-mail"]);
  });

  it("a cancel closes only the steps on the recipient's path", async () => {
    const { id, key, workflow } = await setUp([
      {
        id: "route",
        type: "branch",
        paths: [
          {
            id: "big",
            if: { field: "payload.total", op: "gt", value: 1000 },
            steps: [{ id: "pause", type: "delay", for: "PT1H" }, text("big-sms")],
          },
        ],
        default: { steps: [mail("small-mail")] },
      },
      mail("after"),
    ]);
    const tx = await triggerDelivered(key, { workflow, to: person(), payload: { total: 5000 } });
    expect((await api(key, "DELETE", "/v1/trigger", { transactionId: tx })).status).toBe(200);
    // The cancel hands the parked recipients' job back at once; the consumer closes their steps.
    await deliverHeldJobs(id, tx);
    const messages = await deliveredMessages(key, tx, 2);
    expect(messages.map((m) => [m.stepId, m.status]).sort()).toEqual([
      ["after", "cancelled"],
      ["big-sms", "cancelled"],
    ]);
  });
});
