// The `wrangler dev` command line of `npm start`, apart so a test can read it without starting anything.
import { LOCAL_LEDGER_SHARDS } from "./lib.mjs";

/**
 * @param {{ host: string, port: string, env: Record<string, string | undefined> }} options
 *   `env`: npm start's environment; METRICS_TOKEN there turns the local GET /metrics on.
 */
export function startArgs({ host, port, env }) {
  return [
    "dev",
    "--local",
    "--ip",
    host,
    "--port",
    port,
    "--show-interactive-dev-session=false",
    "--var",
    `PUBLIC_URL:http://${host}:${port}`,
    "--var",
    `LEDGER_SHARDS:${LOCAL_LEDGER_SHARDS}`,
    // Local development points integrations at servers on this machine (docs/concepts/security.md).
    "--var",
    "ALLOW_PRIVATE_DESTINATIONS:true",
    ...(env.METRICS_TOKEN ? ["--var", `METRICS_TOKEN:${env.METRICS_TOKEN}`] : []),
  ];
}
