// The deployment's own wrangler config: wrangler.toml with this account's database id and this
// deployment's address. Written to `wrangler.deploy.toml` (ignored by git) next to wrangler.toml,
// so the relative paths in it (main, assets, migrations) still hold.

import { withOtlp } from "./otlp.mjs";
import { withDeliveryQueues } from "./queues.mjs";

export const DEPLOY_CONFIG = "wrangler.deploy.toml";
/** The placeholder id in wrangler.toml; local runs do not need a real one. */
const PLACEHOLDER_ID = "00000000-0000-0000-0000-000000000000";

/**
 * @param {string} toml  the text of wrangler.toml
 * @param {{ name: string, databaseName: string, databaseId: string, publicUrl: string, otlp?: import("./otlp.mjs").Otlp | null, deliveryQueues?: { produced: number, consumed: number } }} deployment
 */
export function deployConfig(toml, { name, databaseName, databaseId, publicUrl, otlp = null, deliveryQueues }) {
  const replaced = withOtlp(deliveryQueues ? withDeliveryQueues(toml, deliveryQueues) : toml, otlp)
    .replace(/^name = ".*"$/m, `name = ${JSON.stringify(name)}`)
    .replace(/^database_name = ".*"$/m, `database_name = ${JSON.stringify(databaseName)}`)
    .replace(`database_id = "${PLACEHOLDER_ID}"`, `database_id = ${JSON.stringify(databaseId)}`)
    .replace(/^PUBLIC_URL = ".*"$/m, `PUBLIC_URL = ${JSON.stringify(publicUrl)}`);
  for (const [what, value] of [
    ["database_id", databaseId],
    ["PUBLIC_URL", publicUrl],
  ]) {
    if (!replaced.includes(`${what} = ${JSON.stringify(value)}`)) throw new Error(`wrangler.toml has no ${what} line to set`);
  }
  return `# Written by \`npm run deploy\` from wrangler.toml: do not edit, do not commit.\n${replaced}`;
}

/** The queues wrangler.toml binds: the deployment must have each of them. */
export function queuesOf(/** @type {string} */ toml) {
  return [...new Set([...toml.matchAll(/^(?:queue|dead_letter_queue) = "([^"]+)"$/gm)].map((m) => m[1]))];
}

/** The R2 buckets wrangler.toml binds: the deployment must have each of them. */
export function bucketsOf(/** @type {string} */ toml) {
  return [...new Set([...toml.matchAll(/^bucket_name = "([^"]+)"$/gm)].map((m) => m[1]))];
}
