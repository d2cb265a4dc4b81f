// What the Inbox benchmarks share: subscribers, Inbox sessions as a browser gets them
// (POST /novu/v1/inbox/session with the subscriber hash), sockets as `@novu/js` opens them
// (`<socketUrl>?token=`), and the memory of the local runtime. Run under the project's Node 22
// (`npm run bench:inbox-*`), whose global WebSocket is the browser's API.
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { loadavg } from "node:os";

/** Creates `count` subscribers (ids `<prefix>-<i>`) and returns their ids. */
export async function createSubscribers(call, prefix, count) {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (let i = 0; i < ids.length; i += 500) {
    const res = await call("POST", "/sub/bulk", { subscribers: ids.slice(i, i + 500).map((subscriberId) => ({ subscriberId })) });
    if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  return ids;
}

/** Runs `task` over `items`, `width` at a time. */
export async function pool(items, width, task) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i], i);
      }
    }),
  );
  return results;
}

/** An Inbox session token per subscriber, as the Inbox component gets it. */
export async function sessions(baseUrl, call, ids) {
  const { body } = await call("GET", "/v1/in-app/settings");
  const { applicationIdentifier, hmacSecret } = body;
  return pool(ids, 25, async (subscriberId) => {
    const res = await fetch(`${baseUrl}/novu/v1/inbox/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        applicationIdentifier,
        subscriberHash: createHmac("sha256", hmacSecret).update(subscriberId).digest("hex"),
        subscriber: { subscriberId },
      }),
    });
    const answer = await res.json().catch(() => null);
    if (res.status >= 300 || !answer?.data?.token)
      throw new Error(`session answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer.data.token;
  });
}

/** An open socket per token; each counts its frames by event. */
export async function openSockets(baseUrl, tokens) {
  const socketUrl = `${baseUrl.replace(/^http/, "ws")}/novu/socket`;
  return pool(tokens, 50, (token) => {
    const ws = new WebSocket(`${socketUrl}?token=${encodeURIComponent(token)}`);
    const socket = { ws, events: {}, pongs: 0, waiters: [] };
    ws.addEventListener("message", (event) => {
      if (event.data === "pong") socket.pongs++;
      else {
        const { event: name } = JSON.parse(event.data);
        socket.events[name] = (socket.events[name] ?? 0) + 1;
      }
      for (const wake of socket.waiters.splice(0)) wake();
    });
    return new Promise((resolve, reject) => {
      ws.addEventListener("open", () => resolve(socket), { once: true });
      ws.addEventListener("error", () => reject(new Error("a socket failed to open")), { once: true });
    });
  });
}

/** Resolves when `done(socket)` holds for every socket (checked on each frame), or rejects after `timeoutMs`. */
export function untilEvery(sockets, done, timeoutMs) {
  return Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("timed out waiting for frames")), timeoutMs);
          const check = () => {
            if (done(socket)) {
              clearTimeout(timer);
              resolve();
            } else socket.waiters.push(check);
          };
          check();
        }),
    ),
  );
}

/** Resident memory (MiB) of the workerd processes of the server started by bench/server.mjs (its process group). */
export function workerdRssMiB(serverPid) {
  const lines = execFileSync("ps", ["-eo", "pgid=,rss=,comm="], { encoding: "utf8" }).trim().split("\n");
  const kib = lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([pgid, , comm]) => Number(pgid) === serverPid && comm.includes("workerd"))
    .reduce((sum, [, rss]) => sum + Number(rss), 0);
  return kib / 1024;
}

export const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
