// Node-side harness for the provider conformance suite: a local HTTP server that records
// every request exactly as it arrived and answers with whatever the test scripts.
import { createServer, type IncomingHttpHeaders } from "node:http";

export interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Answer only after this long (a provider that hangs past the integration's timeout). */
  delayMs?: number;
}

export interface CaptureServer {
  url: string;
  requests: Captured[];
  /** Answers for the next requests, in order; the last one repeats. */
  answer(...answers: Answer[]): void;
  /** Forgets what was recorded (between the SDK's send and the adapter's). */
  reset(): void;
  close(): Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
  const requests: Captured[] = [];
  let answers: Answer[] = [{ status: 200, body: {} }];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? "", path: req.url ?? "/", headers: req.headers, body, text: body.toString("utf8") });
      const answer = (answers.length > 1 ? answers.shift() : answers[0])!;
      const payload = answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(payload);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (...next) => {
      answers = next;
    },
    reset: () => {
      requests.length = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The fields both requests must agree on, for a readable diff when they do not. */
export const shape = (r: Captured) => ({
  method: r.method,
  path: r.path.split("?")[0],
  contentType: String(r.headers["content-type"] ?? "").split(";")[0],
  authScheme: String(r.headers.authorization ?? "").split(" ")[0],
});
