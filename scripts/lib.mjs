/**
 * Ledger shards for a local runtime (`npm start`, the benchmarks): `wrangler dev` runs every
 * Durable Object on one thread, so shards add no parallelism locally, only a storage commit and
 * a call each per batch. Deployments use wrangler.toml's LEDGER_SHARDS (32).
 */
export const LOCAL_LEDGER_SHARDS = "4";

import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

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
 * Set (to "1") by `npm test` in the stages it starts once it has built the dashboard for the run:
 * a script that would build it again (the deploy dry-run, the browser suite's set-up) uses that
 * build instead of emptying dashboard/dist under a running stage.
 */
export const DASHBOARD_BUILT_ENV = "CLARION_DASHBOARD_BUILT";

/** Builds the dashboard unless `npm test` built it for this run already (DASHBOARD_BUILT_ENV). */
export const buildDashboardOnce = () => (process.env[DASHBOARD_BUILT_ENV] === "1" ? Promise.resolve() : buildDashboard());

/**
 * The built dashboard's page (vite's `outDir` is `dist/dashboard`, so the Worker serves it at
 * /dashboard/). A suite that starts its own `wrangler dev` asks `dashboardBuilt()` before building.
 * They used to look for `dashboard/dist/index.html`, which no build writes, so each rebuilt the
 * dashboard (emptying dashboard/dist) while the browser suite's Clarion served it, and that
 * suite's pages met 500s for their scripts.
 */
export const DASHBOARD_INDEX = "dashboard/dist/dashboard/index.html";

/** Whether a built dashboard is there to serve (`root`: the repository's folder). */
export const dashboardBuilt = (root = ".") => process.env[DASHBOARD_BUILT_ENV] === "1" || existsSync(join(root, DASHBOARD_INDEX));

/** Builds the dashboard only when `dashboardBuilt(root)` says there is none: what a suite with its own Clarion calls first. */
export const buildDashboardIfMissing = (root = ".") => (dashboardBuilt(root) ? Promise.resolve() : buildDashboard());

/**
 * Builds the dashboard (`args` adds vite options such as `--mode pages`). Always React's production
 * build: a caller running under another NODE_ENV (vitest sets "test") would otherwise ship React's
 * development code.
 * @param {string[]} [args]
 * @param {Record<string, string>} [env]
 */
export const buildDashboard = async (args = [], env = {}) => {
  await ensureInstalled("dashboard", "the dashboard's dependencies");
  return run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn", ...args], {
    env: { ...env, NODE_ENV: "production" },
  });
};

/**
 * What has its own package.json keeps its own node_modules, so the root's `npm install` stays lean
 * for someone who only runs the Worker: the dashboard (dashboard/package.json), the provider SDKs
 * the conformance suite compares with, and Novu's SDKs the compatibility suite drives. Installed
 * here, from their lock files, when a package is missing, not the exact version pinned, or the
 * lock file moved since. `npm install` rather than `npm ci`, so a package added to package.json is
 * installed (and locked) rather than refused.
 * @param {string} dir
 * @param {string} what  said while installing
 */
export function ensureInstalled(dir, what) {
  // Once per process: two stages running side by side (`npm test`'s lanes) wait for the same install.
  const pending = installs.get(dir) ?? install(dir, what);
  installs.set(dir, pending);
  return pending;
}

/** @type {Map<string, Promise<void>>} */
const installs = new Map();

/** @param {string} dir @param {string} what */
async function install(dir, what) {
  const { dependencies = {}, devDependencies = {} } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const stale = Object.entries({ ...dependencies, ...devDependencies }).filter(([name, version]) => {
    const installed = join(dir, "node_modules", name, "package.json");
    if (!existsSync(installed)) return true;
    // A range (the dashboard's ^x.y.z) is the lock file's business; an exact pin (the SDKs) is checked here.
    return /^\d/.test(version) && JSON.parse(readFileSync(installed, "utf8")).version !== version;
  });
  // npm keeps what it installed in node_modules/.package-lock.json: older than the lock file means the lock moved since.
  const installedTree = join(dir, "node_modules", ".package-lock.json");
  const lockMoved = !existsSync(installedTree) || statSync(join(dir, "package-lock.json")).mtimeMs > statSync(installedTree).mtimeMs;
  if (!stale.length && !lockMoved) return;
  console.log(`installing ${what} into ${dir}/node_modules from its lock file`);
  await run("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund"], { quiet: true });
}
