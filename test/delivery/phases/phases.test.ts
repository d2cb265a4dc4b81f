import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../src/db/client";
import type { ClaimResult } from "../../../src/durable-objects/ledger/claims";
import { LogStore } from "../../../src/durable-objects/client/log-store";
import type { ChannelStep } from "../../../src/engine/steps";
import { runOutcome, waitEntries } from "../../../src/delivery/phases/park";
import { planChannelStep } from "../../../src/delivery/phases/plan";
import { recordClaims } from "../../../src/delivery/phases/record";
import { reportResults } from "../../../src/delivery/phases/report";
import type { StepScope } from "../../../src/delivery/phases/scope";
import { sendAll, type Delivered } from "../../../src/delivery/phases/send";
import { transition } from "../../../src/delivery/recipients/recipient-transitions";
import type { Loaded, Recipient } from "../../../src/delivery/recipients/recipients-state";
import type { RecipientsJob } from "../../../src/jobs/job";
import { PartialSet } from "../../../src/engine/partials";
import type { IntegrationConfig } from "../../../src/providers/types";

const NOW = new Date("2026-06-01T12:00:00Z");
const mail: ChannelStep = {
  id: "mail",
  type: "email",
  template: { subject: "Hi {{ subscriber.firstName }}", text: "Hello" },
} as ChannelStep;
const sandbox: IntegrationConfig = {
  id: "int_1",
  provider: "sandbox-email",
  channel: "email",
  credentials: {},
  settings: {},
  baseUrl: null,
};
const backup: IntegrationConfig = { ...sandbox, id: "int_2", provider: "sandbox-email" };
const trigger = {
  environmentId: "env_1",
  transactionId: "tx-1",
  workflowKey: "wf",
  recipients: [],
  payload: {},
  overrides: null,
  actor: null,
  acceptedAt: NOW.getTime() - 1_000,
};
const job: RecipientsJob = {
  v: 1,
  type: "recipients",
  environmentId: "env_1",
  transactionId: "tx-1",
  chunk: 0,
  subscriberIds: ["a", "b", "c"],
};

function recipient(subscriberId: string, patch: Partial<Recipient> = {}): Recipient {
  return {
    profile: {
      subscriberId,
      email: subscriberId === "c" ? null : `${subscriberId}@example.com`,
      phone: null,
      pushTokens: [],
      chatWebhooks: [],
    },
    context: {
      payload: {},
      subscriber: { subscriberId, firstName: subscriberId.toUpperCase() },
      actor: null,
      vars: {},
      workflow: { key: "wf", name: "wf" },
    },
    preferences: null,
    listUnsubscribe: null,
    locale: null,
    timezone: "UTC",
    steps: {},
    state: "active",
    notes: [],
    ...patch,
  };
}

function loadedWith(recipients: Recipient[], patch: Partial<Loaded> = {}): Loaded {
  return {
    workflow: { key: "wf", name: "wf", critical: false, unsubscribe: "workflow", steps: [mail] },
    recipients: new Map(recipients.map((r) => [r.profile.subscriberId, r])),
    existing: new Map(),
    integrations: new Map([["email", [sandbox, backup]]]),
    suppressed: new Set(),
    content: { layouts: new Map(), defaultLayout: null, partials: PartialSet.EMPTY },
    secrets: [],
    ...patch,
  };
}

const scope = (loaded: Loaded): StepScope => ({
  db: createDb(env.DB),
  job,
  trigger,
  step: mail,
  existing: loaded.existing,
  suppressed: loaded.suppressed,
  secrets: loaded.secrets,
  traced: true,
});
const key = (id: string) => `${id}\u0000mail`;
const noClaims = (): ClaimResult => ({ granted: [], cancelled: [], busy: [], sent: [], final: [] });

describe("plan phase", () => {
  it("renders a send for a reachable recipient and a final skip for one without an address", () => {
    const [a, c] = [recipient("a"), recipient("c")];
    const plan = planChannelStep(mail, 0, [a, c], loadedWith([a, c]), trigger, NOW);
    expect(plan.sends.map((s) => [s.recipient.profile.subscriberId, s.content.subject])).toEqual([["a", "Hi A"]]);
    expect(plan.finals.map((f) => [f.recipient.profile.subscriberId, f.status, f.code])).toEqual([["c", "skipped", "missing_address"]]);
  });

  it.each([false, true])("skips a recipient whose address is suppressed, critical workflow %s", (critical) => {
    const [a, b] = [recipient("a"), recipient("b")];
    const loaded = loadedWith([a, b], {
      workflow: { key: "wf", name: "wf", critical, unsubscribe: "workflow", steps: [mail] },
      suppressed: new Set(["a@example.com"]),
    });
    const plan = planChannelStep(mail, 0, [a, b], loaded, trigger, NOW);
    expect(plan.sends.map((s) => s.recipient.profile.subscriberId)).toEqual(["b"]);
    expect(plan.finals.map((f) => [f.recipient.profile.subscriberId, f.status, f.code])).toEqual([["a", "skipped", "suppressed"]]);
  });

  it("makes a recipient in quiet hours wait, resuming at this step", () => {
    const quiet = recipient("a", { preferences: { quietHours: { start: "00:00", end: "23:59" } } as Recipient["preferences"] });
    const plan = planChannelStep(mail, 2, [quiet], loadedWith([quiet]), trigger, NOW);
    expect(plan.sends).toEqual([]);
    expect(quiet.state).toBe("waiting");
    expect(quiet.resumeAt?.fromStep).toBe(2);
    expect(quiet.notes[0]).toMatchObject({ reason: "quiet_hours" });
  });

  it("holds a recipient outside their schedule until its next window, then sends (the clock injected)", () => {
    // NOW is Monday 12:00 UTC (14:00 in Zurich, summer time); the subscriber takes email on Mondays 15:00-17:00 Zurich time.
    const schedule = { enabled: true, days: { mon: { enabled: true, hours: [{ start: "15:00", end: "17:00" }] } } };
    const held = recipient("a", { preferences: { schedule }, timezone: "Europe/Zurich" });
    const plan = planChannelStep(mail, 1, [held], loadedWith([held]), trigger, NOW);
    expect(plan.sends).toEqual([]);
    expect(held.state).toBe("waiting");
    expect(held.resumeAt).toEqual({
      fireAt: Date.parse("2026-06-01T12:00:00Z") + 3_600_000,
      fromStep: 1,
      hold: { kind: "schedule", stepId: "mail" },
    });
    expect(held.notes[0]).toMatchObject({ reason: "schedule", heldUntil: "2026-06-01T13:00:00.000Z" });
    // When the wait ends the run comes back to this step, now inside the window.
    const resumed = recipient("a", { preferences: { schedule }, timezone: "Europe/Zurich" });
    const later = planChannelStep(mail, 1, [resumed], loadedWith([resumed]), trigger, new Date(held.resumeAt!.fireAt));
    expect(later.sends.map((s) => s.recipient.profile.subscriberId)).toEqual(["a"]);
  });

  it("sends at once inside the schedule, and never holds a critical workflow's message", () => {
    const schedule = { enabled: true, days: { mon: { enabled: true, hours: [{ start: "11:00", end: "13:00" }] } } };
    const inside = recipient("a", { preferences: { schedule } });
    expect(planChannelStep(mail, 0, [inside], loadedWith([inside]), trigger, NOW).sends).toHaveLength(1);
    const closed = { enabled: true, days: { tue: { enabled: true, hours: [{ start: "09:00", end: "10:00" }] } } };
    const urgent = recipient("b", { preferences: { schedule: closed } });
    const loaded = loadedWith([urgent], { workflow: { key: "wf", name: "wf", critical: true, unsubscribe: "workflow", steps: [mail] } });
    expect(planChannelStep(mail, 0, [urgent], loaded, trigger, NOW).sends).toHaveLength(1);
  });

  it("counts a message already final in D1 as done without planning it again", () => {
    const a = recipient("a");
    const loaded = loadedWith([a]);
    loaded.existing.set(key("a"), { id: "msg_1", status: "delivered", attempts: 1 } as never);
    const plan = planChannelStep(mail, 0, [a], loaded, trigger, NOW);
    expect(plan.sends).toEqual([]);
    expect(a.steps.mail).toEqual({ status: "delivered" });
  });
});

describe("record phase", () => {
  it("sends what was granted, halts what another consumer holds, and records everything cancelled for a cancelled trigger", () => {
    const [a, b] = [recipient("a"), recipient("b")];
    const loaded = loadedWith([a, b]);
    const plan = planChannelStep(mail, 0, [a, b], loaded, trigger, NOW);
    const granted = recordClaims(plan, { ...noClaims(), granted: [key("a")], busy: [key("b")] }, scope(loaded), NOW);
    expect(granted.toSend.map((s) => s.recipient.profile.subscriberId)).toEqual(["a"]);
    expect(granted.busy.map((r) => r.profile.subscriberId)).toEqual(["b"]);
    // A new email message is written once, with its result: nothing before the send.
    expect(granted.writes.empty).toBe(true);
    expect(granted.toSend[0]!.unwritten).toMatchObject({ fields: { subject: "Hi A", content: { subject: "Hi A" } }, createdAt: NOW });

    const [x, y] = [recipient("a"), recipient("b")];
    const again = planChannelStep(mail, 0, [x, y], loadedWith([x, y]), trigger, NOW);
    const cancelled = recordClaims(again, { ...noClaims(), cancelled: [key("a"), key("b")] }, scope(loaded), NOW);
    expect(cancelled.toSend).toEqual([]);
    expect([x.stop?.code, y.stop?.code]).toEqual(["trigger_cancelled", "trigger_cancelled"]);
    expect(x.steps.mail).toEqual({ status: "cancelled" });
  });

  it("records a send the object saw but D1 lost as sent, without sending again", () => {
    const a = recipient("a");
    const loaded = loadedWith([a]);
    const plan = planChannelStep(mail, 0, [a], loaded, trigger, NOW);
    const report = { providerMessageId: "p-1", provider: "sandbox-email", integrationId: "int_1", to: "a@example.com", attempts: 1 };
    const recorded = recordClaims(plan, { ...noClaims(), sent: [{ key: key("a"), report }] }, scope(loaded), NOW);
    expect(recorded.toSend).toEqual([]);
    expect(a.steps.mail).toEqual({ status: "sent" });
    const batch = recorded.writes.logBatch(new LogStore(env));
    const inserted = batch.entries().flatMap(([, w]) => w.inserts ?? []);
    expect(inserted.map((m) => [m.subscriberId, m.status, m.providerMessageId])).toEqual([["a", "sent", "p-1"]]);
  });
});

describe("report phase", () => {
  const deliveredWith = (a: Recipient, outcome: Delivered["result"]["outcome"], attempts = 0): Delivered => ({
    send: { recipient: a, messageId: "msg_1", isNew: true, content: {}, attempts, notes: [] },
    integration: sandbox,
    to: "a@example.com",
    result: { outcome, captures: [], invalidAddresses: [] },
  });

  it("reports a success as sent with the provider's id", () => {
    const a = recipient("a");
    const out = reportResults([deliveredWith(a, { ok: true, providerMessageId: "p-9" })], [sandbox], scope(loadedWith([a])), NOW, NOW);
    expect(out.reports).toEqual([
      {
        key: key("a"),
        outcome: "sent",
        report: {
          providerMessageId: "p-9",
          messageId: "msg_1",
          provider: "sandbox-email",
          integrationId: "int_1",
          to: "a@example.com",
          attempts: 1,
        },
      },
    ]);
    expect(a.steps.mail).toEqual({ status: "sent" });
    expect(out.retries).toEqual([]);
  });

  it("retries a retryable failure, honouring Retry-After, and gives up once every provider had its attempts", () => {
    const a = recipient("a");
    const retry = reportResults(
      [deliveredWith(a, { ok: false, kind: "retryable", code: "rate_limited", message: "429", retryAfterSeconds: 40 })],
      [sandbox],
      scope(loadedWith([a])),
      NOW,
      NOW,
    );
    expect(retry.reports).toEqual([{ key: key("a"), outcome: "retry" }]);
    expect(retry.retries[0]!.delaySeconds).toBeGreaterThanOrEqual(40);

    const b = recipient("b");
    const exhausted = reportResults(
      [deliveredWith(b, { ok: false, kind: "retryable", code: "timeout", message: "t" }, 5)],
      [sandbox, backup],
      scope(loadedWith([b])),
      NOW,
      NOW,
    );
    expect(exhausted.reports).toEqual([
      { key: key("b"), outcome: "final", report: expect.objectContaining({ status: "failed", errorCode: "timeout", attempts: 6 }) },
    ]);
    expect(exhausted.exhausted).toEqual([{ messageId: "msg_1", reason: "failed after 6 attempts over 2 provider(s): timeout" }]);
    expect(b.steps.mail).toEqual({ status: "failed" });
  });

  it("marks an invalid recipient undeliverable at once", () => {
    const a = recipient("a");
    const out = reportResults(
      [deliveredWith(a, { ok: false, kind: "invalid_recipient", code: "bad_address", message: "no" })],
      [sandbox, backup],
      scope(loadedWith([a])),
      NOW,
      NOW,
    );
    expect(out.reports).toEqual([
      { key: key("a"), outcome: "final", report: expect.objectContaining({ status: "undeliverable", errorCode: "bad_address" }) },
    ]);
    expect(a.steps.mail).toEqual({ status: "undeliverable" });
  });
});

describe("send phase", () => {
  it("calls no provider for a send whose every address is suppressed, failing it as missing_address", async () => {
    const a = recipient("a");
    const loaded = loadedWith([a], { suppressed: new Set(["a@example.com"]) });
    const send = { recipient: a, messageId: "msg_1", isNew: true, content: { subject: "Hi" }, attempts: 0, notes: [] };
    const [delivered] = await sendAll(env, scope(loaded), [send], [sandbox]);
    expect(delivered!.result).toEqual({
      outcome: { ok: false, kind: "permanent", code: "missing_address", message: expect.any(String) },
      captures: [],
      invalidAddresses: [],
    });
  });
});

describe("park phase and recipient transitions", () => {
  it("groups waiting recipients by time and step into resume jobs, and counts the finished and halted", () => {
    const [a, b, c, d] = ["a", "b", "c", "d"].map((id) => recipient(id));
    const hold = { kind: "delay", stepId: "text" } as const;
    transition(a!, { type: "wait", fireAt: 1000, fromStep: 2, hold, note: { delay: "w" } });
    transition(b!, { type: "wait", fireAt: 1000, fromStep: 2, hold, note: { delay: "w" } });
    transition(c!, { type: "halt" });
    const entries = waitEntries(job, [a!, b!, c!, d!]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ fireAt: 1000, hold, job: { subscriberIds: ["a", "b"], fromStep: 2, note: { delay: "w" } } });
    expect(runOutcome([a!, b!, c!, d!])).toEqual({ finished: ["d"], halted: ["c"] });
  });

  it("lets only a running recipient start waiting, halt or digest; a waiting one that the trigger's cancellation reaches ends", () => {
    const halted = transition(recipient("a"), { type: "halt" });
    const hold = { kind: "quiet_hours", stepId: "mail" } as const;
    transition(halted, { type: "wait", fireAt: 1, fromStep: 1, hold, note: {} });
    expect(halted.state).toBe("halted");
    const waiting = transition(recipient("b"), { type: "wait", fireAt: 1, fromStep: 1, hold, note: { n: 1 } });
    transition(waiting, { type: "digest" });
    expect(waiting.state).toBe("waiting");
    expect(transition(waiting, { type: "end" }).state).toBe("stopped");
    expect(transition(recipient("c"), { type: "end" }).state).toBe("active");
  });
});
