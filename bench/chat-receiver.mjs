// A local chat provider for the chaos script: the endpoint of Clarion's generic `webhook` chat
// integration. It verifies each send's Standard Webhooks signature and keeps every call (its
// `webhook-id`, the message id; the subscriber; the text; the time), so a script counts the
// provider calls themselves, not what Clarion recorded of them: a send whose record was lost
// with a killed runtime still shows here, and so does a repeat of it.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

export async function startChatReceiver() {
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const verifier = new Webhook(secret);
  /** @type {{ messageId: string, subscriberId: string, text: string, at: number }[]} */
  const calls = [];
  let invalid = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        const { data } = verifier.verify(Buffer.concat(chunks).toString("utf8"), req.headers);
        calls.push({ messageId: String(req.headers["webhook-id"]), subscriberId: data.subscriberId, text: data.text, at: Date.now() });
      } catch {
        invalid++;
      }
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    /** The integration's credentials. */
    secret,
    /** A subscriber's chat address. */
    urlFor: (subscriberId) => `http://127.0.0.1:${port}/chat/${encodeURIComponent(subscriberId)}`,
    calls: () => calls,
    invalid: () => invalid,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
