// The local runtime's V8 inspector (wrangler dev --inspector-port), for the scripts that profile
// the Worker's isolate: bench:profile (CPU) and bench:alloc (allocations).

/** The isolate's DevTools WebSocket address, once the runtime lists it. */
async function target(port) {
  for (let i = 0; i < 40; i++) {
    const list = await fetch(`http://127.0.0.1:${port}/json`).then(
      (r) => r.json(),
      () => null,
    );
    const found = list?.find((t) => t.webSocketDebuggerUrl);
    if (found) return found.webSocketDebuggerUrl;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("no inspector target");
}

/** A DevTools session on the isolate: `send(method, params)` answers the protocol's reply. */
export async function devtools(port) {
  // The inspector proxy refuses an upgrade without an Origin (Node's WebSocket takes headers).
  const ws = new WebSocket(await target(port), { headers: { origin: `http://127.0.0.1:${port}` } });
  let id = 0;
  const waiting = new Map();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data));
    if (msg.id && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  const ready = new Promise((r) => ws.addEventListener("open", r, { once: true }));
  const send = async (method, params = {}) => {
    await ready;
    const n = ++id;
    ws.send(JSON.stringify({ id: n, method, params }));
    return new Promise((r) => waiting.set(n, r));
  };
  return { send, close: () => ws.close() };
}
