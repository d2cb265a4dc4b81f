// `npm run bench:inbox-sockets`: 1,000 (or INBOX_SOCKETS) Inbox sockets held at once by one local
// Clarion (bench/server.mjs), one subscriber each. Prints the time to open them, the resident
// memory of workerd before and after (and after an idle pause, when objects may hibernate), a
// ping round on every socket (answered by the runtime's auto-response, no object woken), the
// time for a trigger to 100 of them to reach every one, and the load average of the machine.
import { client, ensureWorkflow, startServer } from "./server.mjs";
import { createSubscribers, loadAverage, openSockets, sessions, untilEvery, workerdRssMiB } from "./inbox.mjs";

const SOCKETS = Number(process.env.INBOX_SOCKETS ?? 1_000);
const IDLE_MS = Number(process.env.INBOX_IDLE_MS ?? 15_000);
const WORKFLOW = "bench-inbox-sockets";

if (!Number.isInteger(SOCKETS) || SOCKETS < 1 || SOCKETS > 10_000) {
  console.error("INBOX_SOCKETS must be an integer between 1 and 10000.");
  process.exit(1);
}

const seconds = (since) => ((performance.now() - since) / 1000).toFixed(2);
const server = await startServer();
let ok = true;
try {
  const { call } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark inbox", [
    { id: "bell", type: "in_app", template: { body: "Hello {{ subscriber.subscriberId }}" } },
  ]);
  const ids = await createSubscribers(call, `sock-${Date.now().toString(36)}`, SOCKETS);
  const tokens = await sessions(server.baseUrl, call, ids);
  console.log(`\nset-up: ${SOCKETS} subscribers with Inbox sessions`);
  const before = workerdRssMiB(server.pid);

  let started = performance.now();
  const sockets = await openSockets(server.baseUrl, tokens);
  const openSeconds = seconds(started);
  console.log(`opened ${sockets.length} sockets in ${openSeconds} s`);
  const open = workerdRssMiB(server.pid);

  started = performance.now();
  for (const socket of sockets) socket.ws.send("ping");
  await untilEvery(sockets, (s) => s.pongs >= 1, 60_000);
  const pingSeconds = seconds(started);
  console.log(`every socket answered its ping in ${pingSeconds} s`);

  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = workerdRssMiB(server.pid);

  const targets = sockets.slice(0, 100);
  started = performance.now();
  const accepted = await call("POST", "/v1/trigger", { workflow: WORKFLOW, to: ids.slice(0, targets.length) });
  if (accepted.status !== 202) throw new Error(`trigger answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  await untilEvery(targets, (s) => (s.events.notification_received ?? 0) >= 1 && (s.events.unread_count_changed ?? 0) >= 1, 60_000);
  const pushSeconds = seconds(started);
  const stillOpen = sockets.filter((s) => s.ws.readyState === WebSocket.OPEN).length;

  console.log(`\nsockets open           ${stillOpen} of ${SOCKETS} (opened in ${openSeconds} s)`);
  console.log(
    `workerd RSS            ${before.toFixed(1)} MiB before, ${open.toFixed(1)} MiB with the sockets open, ${idle.toFixed(1)} MiB after ${IDLE_MS / 1000} s idle`,
  );
  console.log(
    `per socket             ${(((open - before) * 1024) / SOCKETS).toFixed(1)} KiB (open), ${(((idle - before) * 1024) / SOCKETS).toFixed(1)} KiB (idle)`,
  );
  console.log(`ping -> pong, all      ${pingSeconds} s`);
  console.log(`trigger -> 100 pushed  ${pushSeconds} s (notification_received and both counts on each)`);
  console.log(`load average           ${loadAverage()} (1, 5, 15 min; ${(await import("node:os")).cpus().length} cores, shared)`);
  ok = stillOpen === SOCKETS;
  for (const socket of sockets) socket.ws.close();
} finally {
  await server.stop();
}
if (!ok) process.exitCode = 1;
