// `npm start`: everything a new user needs to run Clarion locally, with no Cloudflare account.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import {
  applyMigrations,
  ensureAdminKey,
  ensureEnvironments,
  ensureSandboxIntegrations,
  localSql,
  newEncryptionKey,
} from "./bootstrap.mjs";
import { buildDashboard, LOCAL_LEDGER_SHARDS, run } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";

const HOST = "127.0.0.1";
const PORT = process.env.PORT ?? "8787";
const KEYS_FILE = ".clarion/keys.json";

if (!existsSync(".dev.vars")) {
  writeFileSync(".dev.vars", `ENCRYPTION_KEY=${newEncryptionKey()}\n`);
  console.log("created .dev.vars with a local ENCRYPTION_KEY");
}

await buildDashboard();
await applyMigrations();

const sql = localSql();

/**
 * Creates the development and production environments, each with one API key, and the admin
 * credential (its hash goes to `.dev.vars` as ADMIN_KEY_HASH) on first start.
 */
async function bootstrap() {
  const { admin, ...stored } = existsSync(KEYS_FILE) ? JSON.parse(readFileSync(KEYS_FILE, "utf8")) : {};
  const { keys, created } = await ensureEnvironments(sql, ["development", "production"], stored);
  const adminKey = ensureAdminKey(readFileSync(".dev.vars", "utf8"), admin);
  if (adminKey.created) {
    writeFileSync(".dev.vars", adminKey.devVars);
    console.log("created the admin credential (its SHA-256 is ADMIN_KEY_HASH in .dev.vars)");
  }
  if (created || adminKey.created) {
    mkdirSync(".clarion", { recursive: true });
    writeFileSync(KEYS_FILE, JSON.stringify({ ...keys, admin: adminKey.key }, null, 2));
  }
  return { ...keys, admin: adminKey.key };
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
  Keys (also in ${KEYS_FILE}):

    development  ${keys.development}
    production   ${keys.production}
    admin        ${keys.admin}   (the dashboard in every environment, the admin API and \`npx clarion\`)

  Try: curl -H "Authorization: ApiKey ${keys.development}" http://${HOST}:${PORT}/v1/workflows
       CLARION_URL=http://${HOST}:${PORT} CLARION_ADMIN_KEY=${keys.admin} npx clarion envs list
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
    // Local development points integrations at servers on this machine (docs/concepts/security.md).
    "--var",
    "ALLOW_PRIVATE_DESTINATIONS:true",
  ],
  {
    env: { WRANGLER_SEND_METRICS: "false", ...ownRegistry() },
  },
);
