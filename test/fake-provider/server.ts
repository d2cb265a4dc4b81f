// Runs in Node (vitest globalSetup), not in workerd: a local HTTP server that stands in for
// providers. Each test uses its own scenario path, scripts the answers, and reads back the
// exact requests the adapter sent.
import { createServer, type IncomingMessage, type Server } from "node:http";

export interface CapturedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Milliseconds to wait before answering (to exceed an integration's timeout). */
  delayMs?: number;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
  });

export function startFakeProvider(): Promise<{ url: string; server: Server }> {
  const captured = new Map<string, CapturedRequest[]>();
  const scripts = new Map<string, ScriptedAnswer[]>();
  /** Requests of a scenario being answered now, and the most there were at once. */
  const open = new Map<string, { now: number; peak: number }>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const body = await readBody(req);
    const [, kind, scenario, ...rest] = url.pathname.split("/");
    if (kind === "_script" && scenario) {
      scripts.set(scenario, JSON.parse(body) as ScriptedAnswer[]);
      res.writeHead(204).end();
      return;
    }
    if (kind === "_peak" && scenario) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ peak: open.get(scenario)?.peak ?? 0 }));
      return;
    }
    if (kind === "_captured" && scenario) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(captured.get(scenario) ?? []));
      return;
    }
    if (kind !== "s" || !scenario) {
      res.writeHead(404).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    captured.set(scenario, [
      ...(captured.get(scenario) ?? []),
      { method: req.method ?? "", path: `/${rest.join("/")}${url.search}`, headers, body },
    ]);
    const queue = scripts.get(scenario) ?? [];
    // The last scripted answer repeats; with no script, answer like Resend does on success.
    const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? {
      status: 200,
      body: { id: `fake-${Date.now()}-${Math.random().toString(36).slice(2)}` },
    };
    const count = open.get(scenario) ?? { now: 0, peak: 0 };
    open.set(scenario, count);
    count.now++;
    count.peak = Math.max(count.peak, count.now);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    count.now--;
    const payload = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(payload);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, server });
    }),
  );
}
