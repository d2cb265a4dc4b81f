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

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  log = () => "",
  /** An error from the probe that ends the wait at once (others count as "not yet"). */
  fatal: (error: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch((error: unknown) => {
      if (fatal(error)) throw error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.\n--- wrangler output ---\n${log().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ends wrangler and the workerd it started: they share the process group made by `detached`. */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (!child.pid) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  // wrangler has exited (a start that failed): the workerd it started may not have, and shares its group.
  if (child.exitCode !== null || child.signalCode !== null) return signal("SIGKILL");
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
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

/** wrangler's words when a port it chose, or one it was given, was taken in the meantime. */
const PORT_TAKEN = /Address already in use/;
/** Starts with fresh ports this many times when a port is taken between choosing it and binding it. */
const START_ATTEMPTS = 3;

export async function startLocalStack(options: StackOptions = {}): Promise<LocalStack> {
  const label = options.label ?? "local stack";
  const started = Date.now();
  const phase = (name: string) => console.log(`[${label}] ${((Date.now() - started) / 1000).toFixed(1)}s ${name}`);
  const environments = options.environments ?? ["development"];
  const state = mkdtempSync(join(tmpdir(), "clarion-stack-"));
  const encryptionKey = newEncryptionKey();
  const adminKey = newAdminKey();

  await applyMigrations({ persistTo: state });
  const sql = localSql({ persistTo: state });
  const { keys } = await ensureEnvironments(sql, environments);
  await ensureSandboxIntegrations(sql, encryptionKey, environments[0]!);
  phase("applied the migrations, created the environments, keys and sandbox integrations");

  const registry = join(state, "registry");
  mkdirSync(registry);
  // Also on disk, so a test process (not only this set-up) can quote it when a wait times out.
  const logFile = join(state, "wrangler.log");
  let output = "";
  const log = () => output;
  const record = (d: Buffer) => {
    output += d.toString();
    appendFileSync(logFile, d);
  };
  const removeState = () => rmSync(state, { recursive: true, force: true });

  // A free port is only free until someone binds it: two stacks starting side by side (CI runs the
  // docs and browser suites together) can both be handed one, and so can miniflare's own sockets.
  // wrangler then exits saying so, and a start with fresh ports succeeds.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
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
      // Its own inspector port: two stacks started at the same moment would otherwise both take
      // wrangler's default 9229, and one fails to start.
      "--inspector-port",
      String(await freePort()),
    ];
    for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
    const child = spawn(join(ROOT, "node_modules/.bin/wrangler"), args, {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own dev registry: another local Clarion on this machine never takes this one's queue jobs.
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", WRANGLER_REGISTRY_PATH: registry },
    });
    const attemptStart = output.length;
    child.stdout?.on("data", record);
    child.stderr?.on("data", record);
    let exited = false;
    child.once("exit", () => {
      exited = true;
    });
    const stop = async () => {
      await stopProcessGroup(child);
      removeState();
    };
    try {
      await until(
        "wrangler dev to answer /health",
        async () => {
          if (exited) throw new StartFailed();
          return (await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) })).ok ? true : undefined;
        },
        90_000,
        log,
        (error) => error instanceof StartFailed,
      );
    } catch (error) {
      await stopProcessGroup(child);
      const portTaken = PORT_TAKEN.test(output.slice(attemptStart));
      if (portTaken && attempt < START_ATTEMPTS) {
        phase(`a port was taken as wrangler started (attempt ${attempt}); starting again with fresh ports`);
        continue;
      }
      removeState();
      throw error instanceof StartFailed
        ? new Error(`wrangler dev exited before it answered.\n--- wrangler output ---\n${output.slice(-4000)}`)
        : error;
    }
    phase(`wrangler dev answers on ${base}`);
    return { base, keys, adminKey, state, log, logFile, stop };
  }
}

/** wrangler exited before it answered: no use waiting out the timeout. */
class StartFailed extends Error {}
