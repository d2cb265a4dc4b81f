// The one place `npm run deploy` runs wrangler: tests replace it with a fake that answers from a script.
import { spawn } from "node:child_process";

/**
 * @typedef {{ ok: true, stdout: string } | { ok: false, stdout: string, stderr: string, code: number | null }} WranglerResult
 * @typedef {(args: string[]) => Promise<WranglerResult>} Wrangler
 */

/**
 * Runs `wrangler <args>` with the project's own bin first on PATH (and so its Node 22), output
 * captured, never interactive: CI=true makes wrangler take its defaults instead of prompting.
 * @returns {Wrangler}
 */
export function wranglerRunner() {
  return (args) =>
    new Promise((resolve, reject) => {
      const child = spawn("wrangler", args, {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("exit", (code) => resolve(code === 0 ? { ok: true, stdout } : { ok: false, stdout, stderr, code }));
    });
}
