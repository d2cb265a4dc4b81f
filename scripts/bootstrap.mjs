// Local set-up shared by `npm start` and the dashboard's browser test: migrations, environments
// with API keys, and the sandbox integrations, all through `wrangler d1 ... --local`.
import { createHash, randomBytes } from "node:crypto";
import { QUIET_WRANGLER_ENV, run } from "./lib.mjs";

const quiet = { env: { CI: "true", ...QUIET_WRANGLER_ENV } };

/**
 * @typedef {{ persistTo?: string }} LocalD1  Where wrangler keeps local state (default `.wrangler/state`).
 * @typedef {(command: string) => Promise<Record<string, unknown>[]>} Sql
 */

/** @param {LocalD1} [options] */
const persistArgs = (options = {}) => (options.persistTo ? ["--persist-to", options.persistTo] : []);

/**
 * Applies the migrations not applied yet. Wrangler's tables of them (~150 lines) stay off the
 * terminal unless it fails.
 * @param {LocalD1} [options]
 * @returns {Promise<string[]>} the names of the migrations it applied
 */
export async function applyMigrations(options = {}) {
  const out = await run("wrangler", ["d1", "migrations", "apply", "DB", "--local", ...persistArgs(options)], { ...quiet, quiet: true });
  // The first table wrangler prints lists the migrations to apply, one `│ <name>.sql │` row each.
  const plan = out.split("About to apply")[0] ?? "";
  return /Migrations to be applied/.test(plan) ? [...plan.matchAll(/│ (\S+\.sql) +│/g)].map((m) => m[1]) : [];
}

/**
 * Runs SQL on the local D1 database and returns the rows of the first statement.
 * @param {LocalD1} [options]
 * @returns {Sql}
 */
export function localSql(options = {}) {
  return (command) =>
    run("wrangler", ["d1", "execute", "DB", "--local", ...persistArgs(options), "--json", "--command", command], {
      ...quiet,
      capture: true,
    }).then((out) => JSON.parse(out)[0].results);
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/**
 * `ck_<tag>_<32 random base62 characters>`: the Worker's format (`generateApiKey` in
 * src/features/environments/key-format.ts, whose `keyTag` rule this repeats; test/scripts/keys.test.ts holds them together).
 * @param {string} slug
 */
export const newApiKey = (slug) => {
  const tag = slug === "development" ? "dev" : slug === "production" ? "prod" : slug.replace(/[^a-z0-9]/g, "");
  return `ck_${tag}_${Array.from(randomBytes(32), (b) => ALPHABET[b % 62]).join("")}`;
};
/** What lists show of a key: `ck_<tag>_` and its first six random characters. @param {string} key */
export const keyPrefix = (key) => key.slice(0, key.lastIndexOf("_") + 7);
/** The admin credential: `clarion_admin_` and 32 random base62 characters. Only its SHA-256 is given to the Worker. */
export const newAdminKey = () => `clarion_admin_${Array.from(randomBytes(32), (b) => ALPHABET[b % 62]).join("")}`;
/** @param {string} key */
export const adminKeyHash = (key) => sha256(key);

/**
 * Keeps `.dev.vars`' `ADMIN_KEY_HASH` and the admin credential in sync: a credential whose hash is
 * not the one set (or none at all) is replaced by a new one.
 * @param {string} devVars  the text of `.dev.vars`
 * @param {string | undefined} stored  the admin credential handed out before, if any
 * @returns {{ key: string, devVars: string, created: boolean }}
 */
export function ensureAdminKey(devVars, stored) {
  const current = /^ADMIN_KEY_HASH=(.*)$/m.exec(devVars)?.[1]?.trim();
  if (stored && current === sha256(stored)) return { key: stored, devVars, created: false };
  const key = newAdminKey();
  const line = `ADMIN_KEY_HASH=${sha256(key)}`;
  const text = current === undefined ? `${devVars.replace(/\n?$/, "\n")}${line}\n` : devVars.replace(/^ADMIN_KEY_HASH=.*$/m, line);
  return { key, devVars: text, created: true };
}

/** A fresh `ENCRYPTION_KEY`: 32 random bytes, base64. */
export const newEncryptionKey = () => randomBytes(32).toString("base64");
/** @param {string} prefix */
const id = (prefix) => `${prefix}_${Date.now().toString(16).padStart(12, "0")}${randomBytes(10).toString("hex")}`;
/** @param {string} s */
const quote = (s) => `'${s.replaceAll("'", "''")}'`;
/** @param {string} key */
const sha256 = (key) => createHash("sha256").update(key).digest("hex");

/**
 * Makes sure each environment (by slug) exists and has a working API key. `keys` holds the keys
 * already handed out; a key missing, or unknown to the database, is replaced by a new one.
 * @param {Sql} sql
 * @param {string[]} slugs
 * @param {Record<string, string>} [keys]
 * @returns {Promise<{ keys: Record<string, string>, created: boolean }>}
 */
export async function ensureEnvironments(sql, slugs, keys = {}) {
  const result = { ...keys };
  const existing = new Map((await sql("SELECT id, slug FROM environments")).map((r) => [String(r.slug), String(r.id)]));
  const statements = [];
  for (const slug of slugs) {
    const stored = result[slug];
    const known = stored && (await sql(`SELECT 1 AS ok FROM api_keys WHERE hash = ${quote(sha256(stored))} AND revoked_at IS NULL`)).length;
    if (known) continue;
    const envId = existing.get(slug) ?? id("env");
    const now = Date.now();
    if (!existing.has(slug)) {
      statements.push(
        `INSERT INTO environments (id, name, slug, created_at) VALUES (${quote(envId)}, ${quote(slug)}, ${quote(slug)}, ${now})`,
      );
    }
    const key = newApiKey(slug);
    result[slug] = key;
    statements.push(
      `INSERT INTO api_keys (id, environment_id, name, prefix, hash, created_at) VALUES (${quote(id("key"))}, ${quote(envId)}, 'default', ${quote(keyPrefix(key))}, ${quote(sha256(key))}, ${now})`,
    );
  }
  if (statements.length) await sql(statements.join("; "));
  return { keys: result, created: statements.length > 0 };
}

/** @param {Uint8Array} bytes */
const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/**
 * Same format as src/lib/secrets.ts: `v2.<iv>.<AES-GCM ciphertext>`, base64url, bound to its row
 * through the additional authenticated data (`integrationAad` there).
 * @param {unknown} value
 * @param {string} encryptionKey  base64, as in `ENCRYPTION_KEY`
 * @param {string} aad  e.g. `integration:<environmentId>:<integrationId>`
 */
export async function encryptJson(value, encryptionKey, aad) {
  const key = await crypto.subtle.importKey("raw", Buffer.from(encryptionKey, "base64"), "AES-GCM", false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const additionalData = new TextEncoder().encode(aad);
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, key, new TextEncoder().encode(JSON.stringify(value)));
  return `v2.${b64url(iv)}.${b64url(new Uint8Array(data))}`;
}

/**
 * Gives an environment one primary sandbox integration per channel, unless it has integrations already.
 * @param {Sql} sql
 * @param {string} encryptionKey
 * @param {string} [slug]
 * @returns {Promise<boolean>} whether integrations were added
 */
export async function ensureSandboxIntegrations(sql, encryptionKey, slug = "development") {
  const [env] = await sql(`SELECT id FROM environments WHERE slug = ${quote(slug)}`);
  if (!env) return false;
  const envId = String(env.id);
  if ((await sql(`SELECT 1 AS ok FROM integrations WHERE environment_id = ${quote(envId)} LIMIT 1`)).length) return false;
  const now = Date.now();
  const rows = await Promise.all(
    ["email", "sms", "push", "chat"].map(async (channel) => {
      const integrationId = id("int");
      const credentials = await encryptJson({}, encryptionKey, `integration:${envId}:${integrationId}`);
      return `INSERT INTO integrations (id, environment_id, provider, channel, name, active, "primary", priority, credentials, settings, base_url, created_at, updated_at) VALUES (${quote(integrationId)}, ${quote(envId)}, 'sandbox-${channel}', '${channel}', 'Sandbox ${channel}', 1, 1, 0, ${quote(credentials)}, '{}', NULL, ${now}, ${now})`;
    }),
  );
  await sql(rows.join("; "));
  return true;
}
