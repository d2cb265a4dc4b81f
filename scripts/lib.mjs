/**
 * Ledger shards for a local runtime (`npm start`, the benchmarks): `wrangler dev` runs every
 * Durable Object on one thread, so shards add no parallelism locally, only a storage commit and
 * a call each per batch. Deployments use wrangler.toml's LEDGER_SHARDS (32).
 */
export const LOCAL_LEDGER_SHARDS = "4";

import { spawn } from "node:child_process";

/** Runs a command with the project's own bin folder (and so its Node 22) first on PATH. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: options.capture ? ["ignore", "pipe", "inherit"] : "inherit",
      env: { ...process.env, ...options.env },
    });
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`))));
  });
}

/**
 * Builds the dashboard (`args` adds vite options such as `--mode pages`). Always React's production
 * build: a caller running under another NODE_ENV (vitest sets "test") would otherwise ship React's
 * development code.
 * @param {string[]} [args]
 * @param {Record<string, string>} [env]
 */
export const buildDashboard = (args = [], env = {}) =>
  run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn", ...args], {
    env: { ...env, NODE_ENV: "production" },
  });
