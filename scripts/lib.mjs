/**
 * Ledger shards for a local runtime (`npm start`, the benchmarks): `wrangler dev` runs every
 * Durable Object on one thread, so shards add no parallelism locally, only a storage commit and
 * a call each per batch. Deployments use wrangler.toml's LEDGER_SHARDS (32).
 */
export const LOCAL_LEDGER_SHARDS = "4";

import { spawn } from "node:child_process";

/**
 * Runs a command with the project's own bin folder (and so its Node 22) first on PATH. `capture`
 * returns its stdout instead of printing it; `quiet` also keeps its stderr, and prints both only
 * if the command fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ capture?: boolean, quiet?: boolean, env?: Record<string, string>, signal?: AbortSignal }} [options]  `signal` ends the command
 * @returns {Promise<string>} its stdout when captured
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const captured = options.capture || options.quiet;
    const child = spawn(command, args, {
      stdio: captured ? ["ignore", "pipe", options.quiet ? "pipe" : "inherit"] : "inherit",
      env: { ...process.env, ...options.env },
      signal: options.signal,
    });
    let out = "";
    let all = "";
    child.stdout?.on("data", (d) => {
      out += d;
      all += d;
    });
    child.stderr?.on("data", (d) => (all += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve(out);
      if (options.quiet) process.stderr.write(all);
      reject(new Error(`${command} ${args.join(" ")} exited with ${code}`));
    });
  });
}

/**
 * Wrangler without its noise: no usage metrics, no banner (and so no update check), and no fetch
 * of the `Request.cf` sample from the network, which prints a stack when offline; Clarion reads
 * nothing from `request.cf`.
 */
export const QUIET_WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

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
