// A local event webhook receiver for the benches and the chaos script: it verifies every request
// as a user's receiver does (the `standardwebhooks` package), answers 200 (after `delayMs`), and
// counts each event id, so a script can tell arrivals from duplicates.
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

/** @param {{ delayMs?: number }} [options] */
export async function startReceiver(options = {}) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  let requests = 0;
  let invalid = 0;
  let firstAt = 0;
  let lastAt = 0;
  /** @type {Webhook | null} */
  let verifier = null;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      requests++;
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        if (!verifier) throw new Error("no secret yet");
        const event = verifier.verify(body, req.headers);
        seen.set(event.id, (seen.get(event.id) ?? 0) + 1);
        lastAt = performance.now();
        if (!firstAt) firstAt = lastAt;
      } catch {
        invalid++;
      }
      const answer = () => res.writeHead(200).end();
      if (options.delayMs) setTimeout(answer, options.delayMs);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/events`,
    /** The endpoint's signing secret, once the endpoint exists. */
    setSecret: (secret) => {
      verifier = new Webhook(secret);
    },
    stats: () => ({
      unique: seen.size,
      requests,
      invalid,
      duplicates: [...seen.values()].reduce((n, k) => n + k - 1, 0),
      firstAt,
      lastAt,
    }),
    ids: () => new Set(seen.keys()),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
