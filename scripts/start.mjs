// `npm start`: everything a new user needs to run Clarion locally, with no Cloudflare account.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { run } from "./lib.mjs";

const HOST = "127.0.0.1";
const PORT = process.env.PORT ?? "8787";
const KEYS_FILE = ".clarion/keys.json";
const quiet = { env: { CI: "true", WRANGLER_SEND_METRICS: "false" } };

if (!existsSync(".dev.vars")) {
  writeFileSync(".dev.vars", `ENCRYPTION_KEY=${randomBytes(32).toString("base64")}\n`);
  console.log("created .dev.vars with a local ENCRYPTION_KEY");
}

await run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn"]);
await run("wrangler", ["d1", "migrations", "apply", "DB", "--local"], quiet);

const sql = (command) =>
  run("wrangler", ["d1", "execute", "DB", "--local", "--json", "--command", command], { ...quiet, capture: true }).then(
    (out) => JSON.parse(out)[0].results,
  );

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const newKey = (slug) => `ck_${slug}_${Array.from(randomBytes(32), (b) => ALPHABET[b % 62]).join("")}`;
const id = (prefix) => `${prefix}_${Date.now().toString(16).padStart(12, "0")}${randomBytes(10).toString("hex")}`;
const quote = (s) => `'${s.replaceAll("'", "''")}'`;

/** Creates the development and production environments, each with one API key, on first start. */
async function bootstrap() {
  const keys = existsSync(KEYS_FILE) ? JSON.parse(readFileSync(KEYS_FILE, "utf8")) : {};
  const existing = new Map((await sql("SELECT id, slug FROM environments")).map((r) => [r.slug, r.id]));
  const statements = [];
  for (const slug of ["development", "production"]) {
    const stored = keys[slug];
    const hash = stored && createHash("sha256").update(stored).digest("hex");
    const known = hash && (await sql(`SELECT 1 AS ok FROM api_keys WHERE hash = ${quote(hash)} AND revoked_at IS NULL`)).length;
    if (known) continue;
    const envId = existing.get(slug) ?? id("env");
    const now = Date.now();
    if (!existing.has(slug)) {
      statements.push(`INSERT INTO environments (id, name, slug, created_at) VALUES (${quote(envId)}, ${quote(slug)}, ${quote(slug)}, ${now})`);
    }
    const key = newKey(slug === "development" ? "dev" : "prod");
    keys[slug] = key;
    statements.push(
      `INSERT INTO api_keys (id, environment_id, name, prefix, hash, created_at) VALUES (${quote(id("key"))}, ${quote(envId)}, 'default', ${quote(key.slice(0, 12))}, ${quote(createHash("sha256").update(key).digest("hex"))}, ${now})`,
    );
  }
  if (statements.length) {
    await sql(statements.join("; "));
    mkdirSync(".clarion", { recursive: true });
    writeFileSync(KEYS_FILE, JSON.stringify(keys, null, 2));
  }
  return keys;
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** Same format as src/lib/secrets.ts: `v1.<iv>.<AES-GCM ciphertext>`, base64url. */
async function encryptJson(value) {
  const secret = /^ENCRYPTION_KEY=(.+)$/m.exec(readFileSync(".dev.vars", "utf8"))[1].trim();
  const key = await crypto.subtle.importKey("raw", Buffer.from(secret, "base64"), "AES-GCM", false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(JSON.stringify(value)));
  return `v1.${b64url(iv)}.${b64url(new Uint8Array(data))}`;
}

/** The development environment sends through the sandbox providers until you add real ones. */
async function sandboxIntegrations() {
  const [env] = await sql("SELECT id FROM environments WHERE slug = 'development'");
  if (!env || (await sql(`SELECT 1 AS ok FROM integrations WHERE environment_id = ${quote(env.id)} LIMIT 1`)).length) return;
  const now = Date.now();
  const credentials = await encryptJson({});
  const rows = ["email", "sms", "push", "chat"].map(
    (channel) =>
      `INSERT INTO integrations (id, environment_id, provider, channel, name, active, "primary", priority, credentials, settings, base_url, created_at, updated_at) VALUES (${quote(id("int"))}, ${quote(env.id)}, 'sandbox-${channel}', '${channel}', 'Sandbox ${channel}', 1, 1, 0, ${quote(credentials)}, '{}', NULL, ${now}, ${now})`,
  );
  await sql(rows.join("; "));
  console.log("configured the sandbox providers (sandbox-email, sandbox-sms, sandbox-push, sandbox-chat) for development");
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

await run("wrangler", ["dev", "--local", "--ip", HOST, "--port", PORT, "--show-interactive-dev-session=false", "--var", `PUBLIC_URL:http://${HOST}:${PORT}`], {
  env: { WRANGLER_SEND_METRICS: "false" },
});
