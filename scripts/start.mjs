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
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { buildDashboard, QUIET_WRANGLER_ENV } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";
import { requestLogFilter } from "./request-log.mjs";
import { startArgs } from "./start-args.mjs";

const HOST = "127.0.0.1";
const PORT = process.env.PORT ?? "8787";
const KEYS_FILE = ".clarion/keys.json";

if (!existsSync(".dev.vars")) {
  writeFileSync(".dev.vars", `ENCRYPTION_KEY=${newEncryptionKey()}\n`);
  console.log("created .dev.vars with a local ENCRYPTION_KEY");
}

await buildDashboard();
const applied = await applyMigrations();
const migrations = readdirSync("migrations").filter((f) => f.endsWith(".sql")).length;
console.log(
  applied.length
    ? `applied ${applied.length} migration${applied.length > 1 ? "s" : ""} to the local database (${applied.at(-1)?.replace(/\.sql$/, "")} is the latest)`
    : `the local database is up to date (${migrations} migrations)`,
);

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
const banner = `
  Clarion is running on http://${HOST}:${PORT}
  Dashboard:      http://${HOST}:${PORT}/dashboard/
  API reference:  http://${HOST}:${PORT}/docs
  Sandbox sends:  GET /v1/sandbox/messages (development sends through the sandbox providers)
  Keys (also in ${KEYS_FILE}):

    development  ${keys.development}
    production   ${keys.production}
    admin        ${keys.admin}   (the dashboard in every environment, the admin API and \`npx clarion\`)

  Try: export CLARION_URL=http://${HOST}:${PORT} CLARION_KEY=${keys.development} CLARION_ADMIN_KEY=${keys.admin}
       curl -H "Authorization: ApiKey $CLARION_KEY" $CLARION_URL/v1/workflows
       npx clarion envs list
`;

const args = startArgs({ host: HOST, port: PORT, env: process.env });

/**
 * Wrangler's start-up output (its bindings table, "Starting local server") is held back until it
 * says it is ready, then dropped, so the banner above is the last thing printed; from then on its
 * output (a line per request, the Worker's logs) goes to the terminal. If wrangler stops before
 * it is ready, everything it said is printed.
 */
const wrangler = spawn("wrangler", args, {
  stdio: ["inherit", "pipe", "pipe"],
  env: {
    ...process.env,
    ...QUIET_WRANGLER_ENV,
    ...ownRegistry(),
    // wrangler's local trace store (on by default) writes every invocation's events to a SQLite
    // file with an fsync per commit, on the Worker's thread: local triggers ran about a quarter
    // faster without it (docs/guides/benchmarks.md). Clarion's logs still print here, and its
    // dashboard shows every message's timeline. X_LOCAL_OBSERVABILITY=true npm start keeps it.
    X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
  },
});
let held = "";
let ready = false;
// Static files' request lines are two in three of a dashboard session's output (scripts/request-log.mjs).
const logAssets = process.env.CLARION_LOG_ASSETS === "true";
const forward = (stream, out) => {
  const filter = requestLogFilter({ logAssets });
  stream.on("data", (chunk) => {
    if (ready) return out.write(filter(chunk));
    held += chunk;
    if (/Ready on http/.test(held)) {
      ready = true;
      console.log(banner);
    }
  });
};
forward(wrangler.stdout, process.stdout);
forward(wrangler.stderr, process.stderr);
wrangler.on("exit", (code, signal) => {
  if (!ready) process.stderr.write(held);
  process.exit(code ?? (signal ? 1 : 0));
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => wrangler.kill(signal));
