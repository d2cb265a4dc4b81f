// `npm run chaos:workflows` (local only): kills the local runtime with SIGKILL while 1,000
// recipients (CHAOS_RECIPIENTS) are inside a workflow tree: a fetch step (to a server this script
// runs, which counts every call), a two-path branch on the fetched answer, a wait for a signal
// (timing out after CHAOS_WAIT, default 20 s), then a step for each outcome. Half of the triggers
// are signalled after the restart. Starts the runtime again on the same state and checks, through
// the local D1 and log shards:
// - each recipient ends exactly once on the right path: one terminal message for its path's step
//   and none for the other path's, one of the two outcome steps sent and the other skipped;
// - each recorded fetch was called once: a recipient is called twice only when its first call
//   was in flight at the kill (made before it, answer not recorded) and repeated after the restart;
// - nothing stays waiting past its timeout (every trigger's `waiting` list is empty at the end).
import { createServer } from "node:http";
import { client, ensureWorkflow, localDb, seedPushChatSubscribers, startServer } from "../bench/server.mjs";

const RECIPIENTS = Number(process.env.CHAOS_RECIPIENTS ?? 1_000);
const WAIT = process.env.CHAOS_WAIT ?? "PT20S";
const KILL_AT_SHARE = Number(process.env.CHAOS_KILL_AT_SHARE ?? 0.4);
const TIMEOUT_MS = 10 * 60_000;
const TARGET_PORT = Number(process.env.CHAOS_TARGET_PORT ?? 8798);
const WORKFLOW = "chaos-tree";
const TERMINAL = new Set([
  "sent",
  "delivered",
  "opened",
  "clicked",
  "read",
  "seen",
  "failed",
  "bounced",
  "undeliverable",
  "skipped",
  "cancelled",
]);

/** The fetch target: answers each subscriber's tier and keeps every call's time. */
const calls = new Map();
const target = createServer((req, res) => {
  const id = decodeURIComponent(req.url.split("/").pop() ?? "");
  calls.set(id, [...(calls.get(id) ?? []), Date.now()]);
  const index = Number(id.split("-").pop());
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ tier: index % 2 === 0 ? "gold" : "basic" }));
});
await new Promise((resolve) => target.listen(TARGET_PORT, "127.0.0.1", resolve));

const vars = { WATCHDOG_STALL_SECONDS: "10" };
const first = await startServer({ vars });
const { call } = client(first.baseUrl, first.key);
await ensureWorkflow(call, WORKFLOW, "Chaos tree", [
  {
    id: "lookup",
    type: "http",
    request: { method: "GET", url: `http://127.0.0.1:${TARGET_PORT}/tier/{{ subscriber.subscriberId }}` },
  },
  {
    id: "route",
    type: "branch",
    paths: [
      {
        id: "gold",
        if: { field: "steps.lookup.response.body.tier", op: "eq", value: "gold" },
        steps: [{ id: "gold-push", type: "push", template: { title: "Gold", body: "for you" } }],
      },
    ],
    default: { steps: [{ id: "basic-chat", type: "chat", template: { text: "basic" } }] },
  },
  { id: "hold", type: "wait", until: { signal: "go" }, timeout: WAIT },
  {
    id: "after",
    type: "push",
    template: { title: "Signalled", body: "go" },
    if: { field: "steps.hold.outcome", op: "eq", value: "matched" },
  },
  { id: "late", type: "chat", template: { text: "timed out" }, if: { field: "steps.hold.outcome", op: "eq", value: "timed_out" } },
]);

const run = Date.now().toString(36);
const ids = Array.from({ length: RECIPIENTS }, (_, i) => `tree-${run}-${i}`);
await seedPushChatSubscribers(call, ids);
console.log(`set up ${RECIPIENTS} subscribers; workflow: fetch → branch on its answer → wait for "go" (${WAIT}) → one step per outcome`);

const started = performance.now();
const tx = (i) => `tree-${run}-${i}`;
for (let i = 0; i < RECIPIENTS; i += 100) {
  const events = ids.slice(i, i + 100).map((to, j) => ({ workflow: WORKFLOW, transactionId: tx(i + j), to }));
  const res = await call("POST", "/v1/trigger/bulk", { events });
  if (res.status !== 202) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
}
while (calls.size < RECIPIENTS * KILL_AT_SHARE && performance.now() - started < 120_000) await new Promise((r) => setTimeout(r, 50));
const killedAt = Date.now();
await first.stop({ keep: true });
/** The killed runtime made every call before this (the SIGKILL lands at once; stop returns 500 ms later), the restarted one every call after. */
const deadAt = Date.now();
console.log(
  `killed the runtime (SIGKILL) ${((performance.now() - started) / 1000).toFixed(1)} s after the first trigger, with ${calls.size} recipients fetched`,
);

const second = await startServer({
  vars,
  restart: { folder: first.folder, key: first.key, keys: first.keys, encryptionKey: first.encryptionKey },
});
const restartedAt = Date.now();
const { call: call2 } = client(second.baseUrl, second.key);
// Signal every even trigger, as soon as it waits (a signal before its wait starts matches nothing, by design).
const signalled = new Set();
const waitingIn = async (i) =>
  ((await call2("GET", `/v1/trigger/${tx(i)}`)).body?.waiting ?? []).some((w) => w.stepId === "hold" || w.kind === "wait");
const signalling = (async () => {
  while (signalled.size < RECIPIENTS / 2 && Date.now() - restartedAt < 15_000) {
    for (let i = 0; i < RECIPIENTS; i += 2) {
      if (signalled.has(i) || !(await waitingIn(i))) continue;
      const res = await call2("POST", `/v1/trigger/${tx(i)}/signals`, { name: "go" });
      if (res.status === 202) signalled.add(i);
    }
  }
})();

const OURS = `transaction_id LIKE 'tree-${run}-%'`;
const expected = RECIPIENTS * 3;
let settled = 0;
while (Date.now() - restartedAt < TIMEOUT_MS) {
  const db = await localDb(second.persistTo);
  const rows = db.all(`SELECT status, count(*) AS n FROM messages WHERE ${OURS} GROUP BY status`);
  db.close();
  settled = rows.reduce((n, r) => n + (TERMINAL.has(r.status) ? Number(r.n) : 0), 0);
  if (settled >= expected) break;
  await new Promise((r) => setTimeout(r, 1000));
}
await signalling;
const recovered = (Date.now() - restartedAt) / 1000;

const db = await localDb(second.persistTo);
const messages = db.all(`SELECT transaction_id AS tx, step_id AS step, status FROM messages WHERE ${OURS}`);
db.close();
const byTx = Map.groupBy(messages, (m) => m.tx);
const wrong = [];
for (let i = 0; i < RECIPIENTS; i++) {
  const mine = byTx.get(tx(i)) ?? [];
  const steps = mine.map((m) => m.step).sort();
  const path = i % 2 === 0 ? "gold-push" : "basic-chat";
  const sentOutcomes = mine.filter((m) => (m.step === "after" || m.step === "late") && m.status !== "skipped");
  const ok =
    JSON.stringify(steps) === JSON.stringify(["after", "late", path].sort()) &&
    mine.every((m) => TERMINAL.has(m.status)) &&
    sentOutcomes.length === 1 &&
    (signalled.has(i) ? true : sentOutcomes[0]?.step === "late");
  if (!ok) wrong.push({ i, mine });
}
const duplicates = [...calls].filter(([, at]) => at.length > 1);
// A call made by the killed runtime (even in the instant the kill took) and repeated by the
// restarted one, which calls as soon as it runs, before the script sees its /health answer.
const lostInFlight = duplicates.filter(([, at]) => at.length === 2 && at[0] <= deadAt && at[1] > deadAt);
const neverCalled = ids.filter((id) => !calls.has(id));
let stillWaiting = 0;
for (let i = 0; i < RECIPIENTS; i += 25) if (await waitingIn(i)) stillWaiting++;
await second.stop();
target.close();

console.log(`\nafter the restart: ${settled} of ${expected} planned messages terminal in ${recovered.toFixed(1)} s`);
console.log(
  `signalled while waiting: ${signalled.size}; matched or timed out, each recipient sent exactly one outcome step: ${wrong.length === 0}`,
);
console.log(`recipients on the wrong path, with a missing or extra message, or not ended once: ${wrong.length}`);
for (const w of wrong.slice(0, 5)) console.log(`  #${w.i}: ${JSON.stringify(w.mine)}`);
console.log(
  `fetch calls: ${[...calls.values()].reduce((n, at) => n + at.length, 0)} for ${calls.size} recipients; never called ${neverCalled.length}`,
);
console.log(`called twice: ${duplicates.length}, of which in flight at the kill and repeated after the restart: ${lostInFlight.length}`);
for (const [id, at] of duplicates.filter((d) => !lostInFlight.includes(d)).slice(0, 5))
  console.log(
    `  ${id}: calls at ${at.map((t) => `${t - killedAt} ms`).join(", ")} from the kill (restart seen ${restartedAt - killedAt} ms after it)`,
  );
console.log(`triggers still waiting (1 in 25 checked): ${stillWaiting}`);
const ok =
  settled === expected && wrong.length === 0 && duplicates.length === lostInFlight.length && neverCalled.length === 0 && stillWaiting === 0;
console.log(
  ok ? "\nOK: every recipient ended once, on its path; every recorded fetch was called once; nothing waits past its timeout" : "\nFAILED",
);
if (!ok) process.exitCode = 1;
