// `npm start`: everything a new user needs to run Clarion locally, with no Cloudflare account.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { applyMigrations, ensureEnvironments, ensureSandboxIntegrations, localSql, newEncryptionKey } from "./bootstrap.mjs";
import { LOCAL_LEDGER_SHARDS, run } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";

const HOST = "127.0.0.1";
const PORT = process.env.PORT ?? "8787";
const KEYS_FILE = ".clarion/keys.json";

if (!existsSync(".dev.vars")) {
  writeFileSync(".dev.vars", `ENCRYPTION_KEY=${newEncryptionKey()}\n`);
  console.log("created .dev.vars with a local ENCRYPTION_KEY");
}

await run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn"]);
await applyMigrations();

const sql = localSql();

/** Creates the development and production environments, each with one API key, on first start. */
async function bootstrap() {
  const stored = existsSync(KEYS_FILE) ? JSON.parse(readFileSync(KEYS_FILE, "utf8")) : {};
  const { keys, created } = await ensureEnvironments(sql, ["development", "production"], stored);
  if (created) {
    mkdirSync(".clarion", { recursive: true });
    writeFileSync(KEYS_FILE, JSON.stringify(keys, null, 2));
  }
  return keys;
}

/** The development environment sends through the sandbox providers until you add real ones. */
async function sandboxIntegrations() {
  const secret = /^ENCRYPTION_KEY=(.+)$/m.exec(readFileSync(".dev.vars", "utf8"))[1].trim();
  if (await ensureSandboxIntegrations(sql, secret, "development")) {
    console.log("configured the sandbox providers (sandbox-email, sandbox-sms, sandbox-push, sandbox-chat) for development");
  }
}

const keys = await bootstrap();
await sandboxIntegrations();
console.log(`
  Clarion is starting on http://${HOST}:${PORT}
  Dashboard:      http://${HOST}:${PORT}/dashboard/
  API reference:  http://${HOST}:${PORT}/docs
  Sandbox sends:  GET /v1/sandbox/messages (development sends through the sandbox providers)
  Development API key (also in ${KEYS_FILE}):

    ${keys.development}

  Try: curl -H "Authorization: ApiKey ${keys.development}" http://${HOST}:${PORT}/v1/workflows
`);

await run(
  "wrangler",
  [
    "dev",
    "--local",
    "--ip",
    HOST,
    "--port",
    PORT,
    "--show-interactive-dev-session=false",
    "--var",
    `PUBLIC_URL:http://${HOST}:${PORT}`,
    "--var",
    `LEDGER_SHARDS:${LOCAL_LEDGER_SHARDS}`,
    // Local development points integrations at servers on this machine (README "Security").
    "--var",
    "ALLOW_PRIVATE_DESTINATIONS:true",
  ],
  {
    env: { WRANGLER_SEND_METRICS: "false", ...ownRegistry() },
  },
);
