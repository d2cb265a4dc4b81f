// Shared by the benchmark scripts: the local server's address and key, JSON calls, and set-up.
import { readFileSync } from "node:fs";

export const BASE_URL = process.env.CLARION_URL ?? "http://127.0.0.1:8787";

// Benchmarks are for the local server only: never point sustained load at a deployment.
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
if (!LOOPBACK.has(new URL(BASE_URL).hostname)) {
  console.error(`CLARION_URL must point at the local server (127.0.0.1), not ${BASE_URL}.`);
  process.exit(1);
}

function apiKey() {
  if (process.env.CLARION_KEY) return process.env.CLARION_KEY;
  try {
    return JSON.parse(readFileSync(".clarion/keys.json", "utf8")).development;
  } catch {
    console.error("No API key: set CLARION_KEY or run `npm start` once to create .clarion/keys.json.");
    process.exit(1);
  }
}

export const headers = { authorization: `ApiKey ${apiKey()}`, "content-type": "application/json" };

export async function call(method, path, body) {
  const res = await fetch(`${BASE_URL}${path}`, { method, headers, body: body && JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

export async function requireServer() {
  const health = await fetch(`${BASE_URL}/health`).catch(() => null);
  if (!health?.ok) {
    console.error(`Clarion does not answer at ${BASE_URL}/health: start it with \`npm start\`.`);
    process.exit(1);
  }
}

/** Creates the benchmark's workflow unless it exists. */
export async function ensureWorkflow(key, name, steps) {
  const existing = await call("GET", `/v1/workflows/${key}`);
  if (existing.status === 200) return;
  if (existing.status !== 404) throw new Error(`reading the workflow answered ${existing.status}: ${JSON.stringify(existing.body)}`);
  const created = await call("POST", "/v1/workflows", { key, name, steps });
  if (created.status !== 201) throw new Error(`creating the workflow answered ${created.status}: ${JSON.stringify(created.body)}`);
}
