// Every figure of every analytics endpoint equals what counting the message rows gives, after a
// mixed run: sends, a provider failure, a retried send, skips by condition and by preference, a
// cancel, a crash right after an accept, opens, clicks and Inbox reads.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { REASONED_STATUSES } from "../../src/contract/message-figures";
import { flatten } from "../../src/features/analytics/export";
import { MASKS } from "../../src/features/analytics/figures";
import type { ErrorsReport, FatigueReport, Overview, ProvidersReport, WorkflowsReport } from "../../src/features/analytics/schemas";
import type { MessageWithEvents } from "../../src/features/messages/schemas";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash } from "../ledger";
import { api, fetchSettled } from "../request";
import { allMessages, deliverWithRetries, statesOf, tenantWithProvider, triggerRun } from "./analytics-run";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const started = Date.now();
const from = new Date(Math.floor(started / DAY) * DAY - DAY).toISOString();
const to = new Date(Math.floor(started / DAY) * DAY + 2 * DAY).toISOString();
const RANGE = `from=${from}&to=${to}`;

type Env = { id: string; key: string };
let A: Env;
let people: { subscriberId: string; email: string; phone: string }[];
let rows: MessageWithEvents[];

const reaches = (m: MessageWithEvents, mask: number) => (statesOf(m) & mask) !== 0;
const count = (ms: MessageWithEvents[], mask: number) => ms.filter((m) => reaches(m, mask)).length;
const REASONED = REASONED_STATUSES.reduce((bits, s) => bits | (MASKS as Record<string, number>)[s]!, 0) | MASKS.failed;
const reasonOf = (m: MessageWithEvents) => (reaches(m, REASONED) ? (m.error?.code ?? "unknown") : "unknown");
const byReason = (ms: MessageWithEvents[], mask: number) => {
  const out: Record<string, number> = {};
  for (const m of ms.filter((x) => reaches(x, mask))) out[reasonOf(m)] = (out[reasonOf(m)] ?? 0) + 1;
  return out;
};

function totalsOf(ms: MessageWithEvents[]) {
  return {
    messages: ms.length,
    sent: count(ms, MASKS.sent),
    delivered: count(ms, MASKS.delivered),
    opened: count(ms, MASKS.opened),
    clicked: count(ms, MASKS.clicked),
    seen: count(ms, MASKS.seen),
    read: count(ms, MASKS.read),
    failed: count(ms, MASKS.failed),
    bounced: count(ms, MASKS.bounced),
    skipped: count(ms, MASKS.skipped),
    cancelled: count(ms, MASKS.cancelled),
    triggers: new Set(ms.map((m) => m.transactionId)).size,
    recipients: new Set(ms.map((m) => `${m.transactionId}\n${m.subscriberId}`)).size,
  };
}

const get = <T>(key: string, path: string, accept = "application/json") => api<T>(key, "GET", path, undefined, { headers: { accept } });

async function mixedRun(environment: Env) {
  const { key } = environment;
  await createWorkflow(key, {
    key: "mixed",
    steps: [
      { id: "bell", type: "in_app", template: { subject: "Hi", body: "News" } },
      {
        id: "mail",
        type: "email",
        if: { field: "payload.mail", op: "eq", value: true },
        tracking: { opens: true, clicks: true },
        template: { subject: "News", html: '<html><body><a href="https://acme.dev/a">read</a></body></html>' },
      },
      { id: "text", type: "sms", template: { body: "News" } },
    ],
  });
  // One step: its retry, run here, has no continuation that would leave for the real Queue.
  await createWorkflow(key, {
    key: "receipt",
    steps: [{ id: "mail", type: "email", template: { subject: "Receipt", text: "Thanks" } }],
  });
  // acme's provider answers a 500, then takes the retry; globex's refuses for good.
  await tenantWithProvider(environment, "acme", [
    { status: 500, body: { name: "application_error", message: "boom" } },
    { status: 200, body: { id: "re-acme" } },
  ]);
  await tenantWithProvider(environment, "globex", [{ status: 422, body: { name: "invalid_from_address", message: "bad from 12345" } }]);
  const ps = Array.from({ length: 6 }, (_, i) => ({ subscriberId: unique(`an${i}`), email: `an${i}@example.com`, phone: "+41791234567" }));
  for (const p of ps) expect((await api(key, "POST", "/v1/subscribers", p)).status).toBeLessThan(300);
  // The last one turns SMS off: its SMS is skipped by preference, and the opt-out is counted.
  expect((await api(key, "PUT", `/v1/subscribers/${ps[5]!.subscriberId}/preferences`, { channels: { sms: false } })).status).toBe(200);

  const t1 = await triggerRun(key, { workflow: "mixed", to: ps.slice(0, 3).map((p) => p.subscriberId), payload: { mail: true } });
  await triggerRun(key, { workflow: "mixed", to: ps[3]!.subscriberId, payload: { mail: false } });
  await triggerRun(key, { workflow: "mixed", to: ps[5]!.subscriberId, payload: { mail: true } });
  await triggerRun(key, { workflow: "receipt", to: ps[4]!.subscriberId, tenant: "acme" });
  await triggerRun(key, { workflow: "receipt", to: ps[1]!.subscriberId, tenant: "globex" });
  // Crashed right after the accept: one is cancelled before the Queue brings its job, one is resumed.
  const cancelled = await acceptThenCrash(environment.id, "mixed", ps[2]!.subscriberId);
  expect((await api(key, "DELETE", "/v1/trigger", { transactionId: cancelled.transactionId })).status).toBe(200);
  await deliverWithRetries(environment.id, cancelled.transactionId);
  const resumed = await acceptThenCrash(environment.id, "mixed", ps[0]!.subscriberId);
  await deliverWithRetries(environment.id, resumed.transactionId);

  // Opens and a click on t1's emails, Inbox reads of its in-app messages.
  const t1Messages = (await api<{ data: MessageWithEvents[] }>(key, "GET", `/v1/messages?transactionId=${t1}&limit=200`)).body.data;
  const of = (stepId: string, p: number) => t1Messages.find((m) => m.stepId === stepId && m.subscriberId === ps[p]!.subscriberId)!;
  for (const [p, what] of [
    [0, "open"],
    [1, "click"],
  ] as const) {
    const captures = await api<{ data: { content: { html: string } }[] }>(key, "GET", `/v1/sandbox/messages?messageId=${of("mail", p).id}`);
    const html = captures.body.data[0]!.content.html;
    const link = what === "open" ? /<img src="([^"]+)"/.exec(html)![1]! : /<a href="([^"]+)"/.exec(html)![1]!.replaceAll("&amp;", "&");
    const url = new URL(link);
    expect((await fetchSettled(`${url.pathname}${url.search}`, { redirect: "manual" })).status).toBeLessThan(400);
  }
  const inbox = async (p: number, body: Record<string, boolean>) =>
    expect((await api(key, "PATCH", `/v1/subscribers/${ps[p]!.subscriberId}/notifications/${of("bell", p).id}`, body)).status).toBe(200);
  await inbox(0, { read: true });
  await inbox(1, { seen: true });
  await inbox(2, { read: true });
  await inbox(2, { read: false });
  return ps;
}

describe("analytics equal counting the message rows", () => {
  beforeAll(async () => {
    A = await createSandboxEnvironment();
    people = await mixedRun(A);
    rows = await allMessages(A.key);
  });

  it("ran the mix it means to measure", () => {
    const statuses = new Set(rows.flatMap((m) => [m.status, ...m.events.map((e) => e.status)]));
    for (const s of ["sent", "delivered", "opened", "clicked", "read", "seen", "failed", "skipped", "cancelled"])
      expect(statuses).toContain(s);
    // The retried send: two attempts, then sent.
    expect(rows.some((m) => m.tenant === "acme" && m.channel === "email" && m.attempts === 2 && m.status === "sent")).toBe(true);
  });

  it("overview: totals, rates, series and the previous period", async () => {
    const res = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}&granularity=hour`);
    expect(res.status).toBe(200);
    const t = totalsOf(rows);
    expect(res.body.current.totals).toEqual({ ...t, optOuts: 1 });
    expect(res.body.current.rates.delivery).toBe(t.delivered / t.sent);
    expect(res.body.current.rates.bounce).toBe(t.bounced / t.sent);
    expect(res.body.current.rates.failure).toBe(t.failed / count(rows, MASKS.sent | MASKS.failed));
    const emailDelivered = count(
      rows.filter((m) => m.channel === "email"),
      MASKS.delivered,
    );
    expect(res.body.current.rates.open).toBe(t.opened / emailDelivered);
    expect(res.body.current.rates.click).toBe(t.clicked / emailDelivered);
    expect(res.body.current.rates.read).toBe(
      t.read /
        count(
          rows.filter((m) => m.channel === "in_app"),
          MASKS.delivered,
        ),
    );
    expect(res.body.current.rates.optOut).toBe(1 / t.delivered);
    expect(res.body.previous.totals).toMatchObject({ messages: 0, triggers: 0, optOuts: 0 });
    expect(res.body.data).toHaveLength((Date.parse(to) - Date.parse(from)) / HOUR);
    const summed = res.body.data.reduce((n, b) => n + b.messages, 0);
    expect(summed).toBe(t.messages);
    for (const b of res.body.data) {
      const inBucket = rows.filter((m) => Math.floor(Date.parse(m.createdAt) / HOUR) * HOUR === Date.parse(b.at));
      expect(b).toMatchObject({ messages: inBucket.length, sent: count(inBucket, MASKS.sent), failed: count(inBucket, MASKS.failed) });
    }
  });

  it.each(["acme", "globex"])("overview filtered to tenant %s counts only its messages", async (tenant) => {
    const res = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}&tenant=${tenant}`);
    const t = totalsOf(rows.filter((m) => m.tenant === tenant));
    expect(t.messages).toBeGreaterThan(0);
    expect(res.body.current.totals).toEqual({ ...t, optOuts: null });
  });

  it("workflows: a funnel per step in the workflow's order", async () => {
    const res = await get<WorkflowsReport>(A.key, `/v1/analytics/workflows?${RANGE}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((w) => w.workflowKey).sort()).toEqual(["mixed", "receipt"]);
    for (const workflow of res.body.data) {
      const ofWorkflow = rows.filter((m) => m.workflow === workflow.workflowKey);
      const t = totalsOf(ofWorkflow);
      expect(workflow).toMatchObject({ exists: true, triggers: t.triggers, recipients: t.recipients, messages: t.messages });
      for (const step of workflow.steps) {
        const ms = ofWorkflow.filter((m) => m.stepId === step.stepId);
        expect(step).toEqual({
          stepId: step.stepId,
          channel: ms[0]!.channel,
          inWorkflow: true,
          reached: ms.length,
          sent: count(ms, MASKS.sent),
          delivered: count(ms, MASKS.delivered),
          engaged: count(ms, MASKS.engaged),
          failed: count(ms, MASKS.failed),
          skipped: count(ms, MASKS.skipped),
          cancelled: count(ms, MASKS.cancelled),
          skippedByReason: byReason(ms, MASKS.skipped),
          failedByReason: byReason(ms, MASKS.failed),
        });
      }
    }
    const mixed = res.body.data.find((w) => w.workflowKey === "mixed")!;
    expect(mixed.steps.map((s) => s.stepId)).toEqual(["bell", "mail", "text"]);
    expect(Object.keys(mixed.steps.find((s) => s.stepId === "mail")!.skippedByReason).length).toBeGreaterThan(0);
    expect(mixed.steps.find((s) => s.stepId === "text")!.skipped).toBeGreaterThan(0);
    expect(res.body.data.find((w) => w.workflowKey === "receipt")!.steps[0]!.failed).toBe(1);
  });

  it("providers: volume, rates and failures per channel and provider; latency as histogram bounds", async () => {
    const res = await get<ProvidersReport>(A.key, `/v1/analytics/providers?${RANGE}`);
    expect(res.status).toBe(200);
    const groups = Map.groupBy(rows, (m) => JSON.stringify([m.channel, m.provider]));
    expect(res.body.data).toHaveLength(groups.size);
    for (const p of res.body.data) {
      const ms = groups.get(JSON.stringify([p.channel, p.provider]))!;
      const sent = count(ms, MASKS.sent);
      expect(p).toMatchObject({
        messages: ms.length,
        sent,
        delivered: count(ms, MASKS.delivered),
        bounced: count(ms, MASKS.bounced),
        failed: count(ms, MASKS.failed),
        deliveryRate: sent ? count(ms, MASKS.delivered) / sent : null,
        failedByReason: byReason(ms, MASKS.failed),
      });
      if (p.latency.length) expect(p.latencyP50Ms === null || p.latencyP50Ms <= (p.latencyP95Ms ?? Number.POSITIVE_INFINITY)).toBe(true);
    }
    const email = await get<ProvidersReport>(A.key, `/v1/analytics/providers?${RANGE}&channel=email`);
    expect(email.body.data.every((p) => p.channel === "email")).toBe(true);
    expect(email.body.data.reduce((n, p) => n + p.messages, 0)).toBe(rows.filter((m) => m.channel === "email").length);
  });

  it("errors: failures grouped by provider, code and message, each with an example", async () => {
    const res = await get<ErrorsReport>(A.key, `/v1/analytics/errors?${RANGE}`);
    expect(res.status).toBe(200);
    const failed = rows.filter((m) => reaches(m, MASKS.failed));
    expect(res.body.data.reduce((n, g) => n + g.count, 0)).toBe(failed.length);
    for (const g of res.body.data) {
      const example = failed.find((m) => m.id === g.exampleMessageId);
      expect(example).toMatchObject({ channel: g.channel, provider: g.provider, error: { code: g.code } });
      // Numbers of 4 digits or more are masked, so alike errors group.
      expect(g.message).not.toMatch(/\d{4}/);
    }
  });

  it("fatigue: messages sent per subscriber per day, the top, opt-outs after volume", async () => {
    const res = await get<FatigueReport>(A.key, `/v1/analytics/fatigue?${RANGE}`);
    expect(res.status).toBe(200);
    const perDay = new Map<string, number>();
    for (const m of rows.filter((x) => reaches(x, MASKS.sent))) {
      const k = JSON.stringify([m.subscriberId, Math.floor(Date.parse(m.createdAt) / DAY)]);
      perDay.set(k, (perDay.get(k) ?? 0) + 1);
    }
    const distribution = new Map<number, number>();
    for (const n of perDay.values()) distribution.set(n, (distribution.get(n) ?? 0) + 1);
    expect(res.body.data).toEqual(
      [...distribution].sort(([a], [b]) => a - b).map(([messages, subscriberDays]) => ({ messages, subscriberDays })),
    );
    expect(res.body.subscriberDays).toBe(perDay.size);
    const perSubscriber = new Map<string, number>();
    for (const [k, n] of perDay) {
      const [s] = JSON.parse(k) as [string];
      perSubscriber.set(s, (perSubscriber.get(s) ?? 0) + n);
    }
    expect(res.body.top.map((t) => [t.subscriberId, t.messages])).toEqual(
      [...perSubscriber].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([s, n]) => [s, n]),
    );
    // The one opt-out came after the subscriber's messages of that day (the run's SMS was skipped, bell and mail sent).
    const optedOut = perSubscriber.get(people[5]!.subscriberId) ?? 0;
    expect(res.body.optOutsAfterVolume.reduce((n, b) => n + b.optOuts, 0)).toBe(1);
    // The opt-out came before the run, whose messages are on the same day: counted in its bucket.
    const bucket = res.body.optOutsAfterVolume.find((b) => b.optOuts === 1)!;
    expect(optedOut).toBeGreaterThanOrEqual(bucket.min);
  });

  it("exports every endpoint as CSV and NDJSON that parse to the JSON's rows", async () => {
    const cases = [
      ["overview", (b: Overview) => b.data.map((x) => flatten(x))],
      ["workflows", (b: WorkflowsReport) => b.data.flatMap(({ steps, ...workflow }) => steps.map((step) => flatten({ workflow, step })))],
      ["providers", (b: ProvidersReport) => b.data.map((x) => flatten(x))],
      ["fatigue", (b: FatigueReport) => b.data.map((x) => flatten(x))],
      ["errors", (b: ErrorsReport) => b.data.map((x) => flatten(x))],
    ] as const;
    for (const [name, rowsOf] of cases) {
      const path = `/v1/analytics/${name}?${RANGE}`;
      const json = await get<never>(A.key, path);
      const expected = (rowsOf as (b: unknown) => Record<string, unknown>[])(json.body);
      expect(expected.length).toBeGreaterThan(0);

      const ndjson = await fetchSettled(path, { headers: { authorization: `ApiKey ${A.key}`, accept: "application/x-ndjson" } });
      expect(ndjson.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      const lines = (await ndjson.text()).trimEnd().split("\n");
      expect(lines.map((l) => JSON.parse(l))).toEqual(expected);

      const csv = await fetchSettled(path, { headers: { authorization: `ApiKey ${A.key}`, accept: "text/csv" } });
      expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
      const [header, ...records] = parseCsv(await csv.text());
      const columns = [...new Set(expected.flatMap((r) => Object.keys(r)))];
      expect(header).toEqual(columns);
      expect(records.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])))).toEqual(
        expected.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] === null || r[c] === undefined ? "" : String(r[c])]))),
      );
    }
  });

  it("keeps another environment's messages out, both ways", async () => {
    const B = await createSandboxEnvironment();
    await createWorkflow(B.key, { key: "mixed", steps: [{ id: "mail", type: "email", template: { subject: "B", text: "B" } }] });
    await triggerRun(B.key, { workflow: "mixed", to: { subscriberId: unique("b"), email: "b@example.com" } });
    const a = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}`);
    const b = await get<Overview>(B.key, `/v1/analytics/overview?${RANGE}`);
    expect(a.body.current.totals).toEqual({ ...totalsOf(rows), optOuts: 1 });
    expect(b.body.current.totals).toMatchObject({ messages: 1, triggers: 1, recipients: 1, optOuts: 0 });
    const errors = await get<ErrorsReport>(B.key, `/v1/analytics/errors?${RANGE}`);
    expect(errors.body.data).toEqual([]);
  });

  it("after an erasure keeps the counts and forgets the subscriber", async () => {
    const before = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}`);
    const fatigueBefore = await get<FatigueReport>(A.key, `/v1/analytics/fatigue?${RANGE}`);
    const gone = people[0]!.subscriberId;
    expect((await api(A.key, "DELETE", `/v1/subscribers/${gone}`)).status).toBe(200);
    const after = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}`);
    expect(after.body.current).toEqual(before.body.current);
    const fatigue = await get<FatigueReport>(A.key, `/v1/analytics/fatigue?${RANGE}`);
    expect(fatigue.body.data).toEqual(fatigueBefore.body.data);
    expect(JSON.stringify(fatigue.body)).not.toContain(gone);
    expect(fatigue.body.top.filter((t) => t.erased)).toEqual([expect.objectContaining({ subscriberId: null })]);
    const errors = await fetchSettled(`/v1/analytics/errors?${RANGE}`, {
      headers: { authorization: `ApiKey ${A.key}`, accept: "text/csv" },
    });
    expect(await errors.text()).not.toContain(gone);
  });

  it("outlives the messages' retention", async () => {
    const before = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}`);
    // Past RETENTION_DAYS (30) for the messages, well within ANALYTICS_RETENTION_DAYS (400) for the rollups.
    await new LogStore(env).expire(Date.now() + 60 * DAY);
    expect((await api<{ data: unknown[] }>(A.key, "GET", "/v1/messages?limit=10")).body.data).toEqual([]);
    const after = await get<Overview>(A.key, `/v1/analytics/overview?${RANGE}`);
    expect(after.body.current.totals).toEqual(before.body.current.totals);
  });
});

/** RFC 4180: quoted fields may hold commas, quotes (doubled) and line breaks; records end in CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  return records;
}
