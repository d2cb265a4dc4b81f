// An Inbox socket as a test opens it: frames are awaited in order, the test settles on each push, no sleeping.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";

export interface Frame {
  event: string;
  data: Record<string, unknown>;
}

export const upgrade = (query: string, path = "/novu/socket") =>
  SELF.fetch(`http://clarion.test${path}${query}`, { headers: { Upgrade: "websocket" } });

/** An open socket and the frames it got, awaited in order: the test settles on each push, no sleeping. */
export async function connect(token: string, path?: string) {
  const res = await upgrade(`?token=${encodeURIComponent(token)}`, path);
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const frames: (Frame | string)[] = [];
  const waiters: (() => void)[] = [];
  ws.addEventListener("message", (event) => {
    const text = String(event.data);
    frames.push(text.startsWith("{") ? (JSON.parse(text) as Frame) : text);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<CloseEvent>((resolve) => ws.addEventListener("close", resolve));
  let read = 0;
  const next = async (timeoutMs = 15_000): Promise<Frame | string> => {
    const deadline = Date.now() + timeoutMs;
    while (read >= frames.length) {
      if (Date.now() > deadline) throw new Error(`no frame after ${JSON.stringify(frames)}`);
      await new Promise<void>((wake) => {
        waiters.push(wake);
        setTimeout(wake, deadline - Date.now());
      });
    }
    return frames[read++]!;
  };
  return { ws, next, closed, frames };
}
