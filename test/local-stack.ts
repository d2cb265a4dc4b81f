// A real local Clarion for the suites that run in Node against it (the dashboard in Chromium, the
// Novu SDKs): `wrangler dev` on a free port with its own state, its own dev registry, a fresh
// database with migrations applied, API keys, an admin credential and the sandbox integrations.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  applyMigrations,
  ensureEnvironments,
  ensureSandboxIntegrations,
  localSql,
  newAdminKey,
  newEncryptionKey,
} from "../scripts/bootstrap.mjs";
import { LOCAL_LEDGER_SHARDS } from "../scripts/lib.mjs";

export const ROOT = resolve(import.meta.dirname, "..");

export interface LocalStack {
  base: string;
  /** An API key per environment slug. */
  keys: Record<string, string>;
  adminKey: string;
  /** The folder of its local state: `localSql({ persistTo: state })` reaches its D1 database. */
  state: string;
  /** wrangler's output so far, for failure messages. */
  log: () => string;
  /** The same output as a file, for test files in other processes. */
  logFile: string;
  stop: () => Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, log = () => ""): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.\n--- wrangler output ---\n${log().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ends wrangler and the workerd it started: they share the process group made by `detached`. */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
  if (!killed) {
    signal("SIGKILL");
    await exited;
  }
}

export interface StackOptions {
  /** Environment slugs to create, each with one key; the first gets the sandbox integrations. */
  environments?: string[];
  /** Extra `--var NAME:value` pairs for the Worker. */
  vars?: Record<string, string>;
  /** Printed with timings, so a slow start shows where it is. */
  label?: string;
}

export async function startLocalStack(options: StackOptions = {}): Promise<LocalStack> {
  const label = options.label ?? "local stack";
  const started = Date.now();
  const phase = (name: string) => console.log(`[${label}] ${((Date.now() - started) / 1000).toFixed(1)}s ${name}`);
  const environments = options.environments ?? ["development"];
  const state = mkdtempSync(join(tmpdir(), "clarion-stack-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const encryptionKey = newEncryptionKey();
  const adminKey = newAdminKey();

  await applyMigrations({ persistTo: state });
  const sql = localSql({ persistTo: state });
  const { keys } = await ensureEnvironments(sql, environments);
  await ensureSandboxIntegrations(sql, encryptionKey, environments[0]!);
  phase("applied the migrations, created the environments, keys and sandbox integrations");

  const vars: Record<string, string> = {
    ENCRYPTION_KEY: encryptionKey,
    PUBLIC_URL: base,
    ADMIN_KEY_HASH: createHash("sha256").update(adminKey).digest("hex"),
    LEDGER_SHARDS: String(LOCAL_LEDGER_SHARDS),
    ALLOW_PRIVATE_DESTINATIONS: "true",
    ...options.vars,
  };
  // --var wins over a .dev.vars in the repository, so the key that encrypted the sandbox credentials is the Worker's.
  const args = [
    "dev",
    "--local",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    state,
    "--show-interactive-dev-session=false",
    // Its own inspector port: two stacks started at the same moment (CI runs the browser and Novu
    // suites side by side) would otherwise both take wrangler's default 9229, and one fails to start.
    "--inspector-port",
    String(await freePort()),
  ];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const registry = join(state, "registry");
  mkdirSync(registry);
  let output = "";
  const child = spawn(join(ROOT, "node_modules/.bin/wrangler"), args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // Its own dev registry: another local Clarion on this machine never takes this one's queue jobs.
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", WRANGLER_REGISTRY_PATH: registry },
  });
  // Also on disk, so a test process (not only this set-up) can quote it when a wait times out.
  const logFile = join(state, "wrangler.log");
  const record = (d: Buffer) => {
    output += d.toString();
    appendFileSync(logFile, d);
  };
  child.stdout?.on("data", record);
  child.stderr?.on("data", record);
  const log = () => output;
  const stop = async () => {
    await stopProcessGroup(child);
    rmSync(state, { recursive: true, force: true });
  };
  try {
    await until("wrangler dev to answer /health", async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 90_000, log);
  } catch (error) {
    await stop();
    throw error;
  }
  phase(`wrangler dev answers on ${base}`);
  return { base, keys, adminKey, state, log, logFile, stop };
}
