// `npm run deploy`: from a clean clone to a running deployment, and again later as an upgrade.
// Every wrangler call goes through `wrangler` (one function, faked in tests); nothing is pasted
// by hand: ids are read from wrangler's own output.
import { randomBytes } from "node:crypto";
import { adminKeyHash, newAdminKey, newEncryptionKey } from "../bootstrap.mjs";
import { client } from "../cli/client.mjs";
import { bucketsOf, DEPLOY_CONFIG, deployConfig, queuesOf } from "./config.mjs";
import { otlpChoice, parseOtlp } from "./otlp.mjs";
import { bucketNamesFrom, databaseIdFrom, deployedUrlFrom, isMissingWorker, queueNamesFrom, secretNamesFrom } from "./parse.mjs";
import { deliveryQueueNumber, deliveryQueuesOf, parseDeliveryQueues, withDeliveryQueues } from "./queues.mjs";

export const STATE_FILE = ".clarion/deploy.json";
export const DRY_RUN_CONFIG = "wrangler.dry-run.toml";
export const DRY_RUN_OUTDIR = ".wrangler/deploy-dry-run";
/** The environments a first deploy creates, each with one key. */
export const FIRST_ENVIRONMENTS = [
  { slug: "production", name: "Production" },
  { slug: "development", name: "Development" },
];
/** Stands in for the address on a first deploy until wrangler has said what it is. */
const UNKNOWN_URL = "https://address-pending.invalid";

/**
 * @typedef {{ dryRun: boolean, url?: string, name: string, database: string, otlp?: string, otlpSampling?: string, deliveryQueues?: string }} DeployOptions
 * @typedef {{ read: (path: string) => string | null, write: (path: string, text: string, mode?: number) => void, remove: (path: string) => void, list: (dir: string) => string[] }} Files
 * @typedef {{
 *   wrangler: import("./wrangler.mjs").Wrangler,
 *   options: DeployOptions,
 *   files: Files,
 *   build: () => Promise<void>,
 *   fetch?: typeof fetch,
 *   log: (line: string) => void,
 *   ask?: (question: string) => Promise<string>,
 *   waitMs?: number,
 * }} DeployDeps
 */

/**
 * @param {DeployDeps["wrangler"]} wrangler
 * @param {string[]} args
 */
async function must(wrangler, args) {
  const result = await wrangler(args);
  if (!result.ok) throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stderr || result.stdout}`);
  return result.stdout;
}

/** Finds the D1 database by name, creating it if there is none. */
async function ensureDatabase(/** @type {DeployDeps} */ { wrangler, options, log }) {
  const existing = databaseIdFrom(await must(wrangler, ["d1", "list", "--json"]), options.database);
  if (existing) {
    log(`  D1 database ${options.database}: found (${existing})`);
    return existing;
  }
  await must(wrangler, ["d1", "create", options.database]);
  const created = databaseIdFrom(await must(wrangler, ["d1", "list", "--json"]), options.database);
  if (!created) throw new Error(`created D1 database ${options.database}, but wrangler d1 list does not show it`);
  log(`  D1 database ${options.database}: created (${created})`);
  return created;
}

/** Every queue name of the account, page by page. */
async function accountQueues(/** @type {DeployDeps["wrangler"]} */ wrangler) {
  const names = [];
  for (let page = 1; page <= 50; page++) {
    const found = queueNamesFrom(await must(wrangler, ["queues", "list", "--page", String(page)]));
    if (!found.length || found.every((name) => names.includes(name))) break;
    names.push(...found);
  }
  return names;
}

async function ensureQueues(/** @type {DeployDeps} */ { wrangler, log }, /** @type {string[]} */ existing, /** @type {string[]} */ wanted) {
  for (const queue of wanted) {
    if (existing.includes(queue)) {
      log(`  queue ${queue}: found`);
      continue;
    }
    await must(wrangler, ["queues", "create", queue]);
    log(`  queue ${queue}: created`);
  }
}

/**
 * The R2 buckets wrangler.toml binds (the log's archive): the Worker does not deploy with a binding
 * to a bucket the account lacks, even while ARCHIVE_TO_R2 is off.
 */
async function ensureBuckets(/** @type {DeployDeps} */ { wrangler, log }, /** @type {string[]} */ wanted) {
  if (!wanted.length) return;
  const existing = bucketNamesFrom(await must(wrangler, ["r2", "bucket", "list"]));
  for (const bucket of wanted) {
    if (existing.includes(bucket)) {
      log(`  R2 bucket ${bucket}: found`);
      continue;
    }
    await must(wrangler, ["r2", "bucket", "create", bucket]);
    log(`  R2 bucket ${bucket}: created`);
  }
}

/**
 * The secrets the Worker has. A Worker that was never deployed has none; any other failure stops
 * the deploy, since guessing "none" would replace ENCRYPTION_KEY and lose every stored credential.
 */
async function workerSecrets(/** @type {DeployDeps} */ { wrangler, options }) {
  const result = await wrangler(["secret", "list", "--name", options.name, "--format", "json"]);
  if (result.ok) return { names: secretNamesFrom(result.stdout), firstDeploy: false };
  if (isMissingWorker(`${result.stdout}\n${result.stderr}`)) return { names: [], firstDeploy: true };
  throw new Error(`cannot read the Worker's secrets (so cannot tell whether ENCRYPTION_KEY is set):\n${result.stderr || result.stdout}`);
}

/**
 * How many delivery queues to send to: `--delivery-queues`, else what the last deploy from here
 * chose, else wrangler.toml's two.
 */
function producedQueues(/** @type {DeployOptions} */ options, /** @type {Record<string, unknown>} */ state, /** @type {string} */ toml) {
  if (options.deliveryQueues !== undefined) return parseDeliveryQueues(options.deliveryQueues);
  if (state.deliveryQueues !== undefined) return parseDeliveryQueues(/** @type {number} */ (state.deliveryQueues));
  return deliveryQueuesOf(toml).count;
}

/**
 * How many to consume: every delivery queue the account has, even those no longer sent to (fewer
 * queues chosen, or a clone without the state file), so no job is left in a queue without a consumer.
 */
function consumedQueues(/** @type {string} */ toml, /** @type {string[]} */ existing, /** @type {number} */ produced) {
  const { prefix } = deliveryQueuesOf(toml);
  const numbers = existing.flatMap((queue) => deliveryQueueNumber(prefix, queue) ?? []);
  return Math.max(produced, ...numbers.map((n) => n + 1));
}

/** Waits for a fresh workers.dev address to answer, then creates the first environments and their keys. */
async function createFirstEnvironments(/** @type {DeployDeps} */ deps, /** @type {string} */ url, /** @type {string} */ adminKey) {
  const request = client({ url, credential: adminKey, fetch: deps.fetch });
  const keys = /** @type {Record<string, string>} */ ({});
  for (let attempt = 0; ; attempt++) {
    try {
      await request("GET", "/v1/admin/environments");
      break;
    } catch (error) {
      if (attempt >= 12) throw error;
      await new Promise((resolve) => setTimeout(resolve, deps.waitMs ?? 5000));
    }
  }
  for (const environment of FIRST_ENVIRONMENTS) {
    try {
      await request("POST", "/v1/admin/environments", environment);
    } catch (error) {
      if (!(error && typeof error === "object" && "code" in error && error.code === "environment_exists")) throw error;
    }
    keys[environment.slug] = (await request("POST", `/v1/admin/environments/${environment.slug}/keys`, { name: "default" })).key;
  }
  return keys;
}

/** The plan, printed before anything runs (and all a dry run does besides building). */
function describePlan(
  /** @type {DeployDeps} */ { options, files, log },
  /** @type {number} */ deliveryQueues,
  /** @type {string[]} */ buckets,
  /** @type {string | undefined} */ url,
  /** @type {import("./otlp.mjs").Otlp | null} */ otlp,
) {
  const migrations = files.list("migrations").filter((f) => f.endsWith(".sql"));
  log(`Plan for Worker "${options.name}"${options.dryRun ? " (dry run: nothing remote is read or changed)" : ""}:`);
  log("  1. build the dashboard (dashboard/dist)");
  log(`  2. find or create the D1 database "${options.database}"`);
  log(
    `  3. find or create the queues (${deliveryQueues} for delivery, --delivery-queues N to change) and the R2 bucket${buckets.length === 1 ? "" : "s"} ${buckets.join(", ")}`,
  );
  log(`  4. write ${DEPLOY_CONFIG} (wrangler.toml with the database id and PUBLIC_URL; ignored by git)`);
  log(
    otlp
      ? `     with traces exported to the destination "${otlp.traces}" and logs to "${otlp.logs}" (OpenTelemetry, ${otlp.sampling * 100} % of requests)`
      : "     without OpenTelemetry export (--otlp <destination> turns it on)",
  );
  log(`  5. apply the migrations not yet applied remotely (of ${migrations.length}: ${migrations.join(", ")})`);
  log("  6. set ENCRYPTION_KEY and ADMIN_KEY_HASH only if the Worker does not have them");
  log(`  7. deploy, with PUBLIC_URL = ${url ?? "the address wrangler reports"}`);
  log("  8. on the first deploy: create the production and development environments and print their keys and the admin credential, once");
}

const OTLP_QUESTION = [
  "Export the Worker's traces and logs over OpenTelemetry (Honeycomb, Grafana Cloud, Axiom ...)?",
  "Create two destinations first in the Cloudflare dashboard (Workers Observability → Destinations),",
  'then name them: a prefix ("honeycomb" for honeycomb-traces and honeycomb-logs) or "<traces>,<logs>".',
  "Press Enter for no: ",
].join("\n");

/**
 * Whether to export over OTLP: `--otlp` (or CLARION_OTLP), else what an earlier deploy chose,
 * else the question when someone is there to answer it. `chosen` is false when nobody chose
 * (CI without the flag): export stays off and the next deploy at a terminal asks.
 * @returns {Promise<{ otlp: import("./otlp.mjs").Otlp | null, chosen: boolean }>}
 */
async function otlpSetting(/** @type {DeployDeps} */ { options, ask, log }, /** @type {Record<string, unknown>} */ state) {
  if (options.otlp !== undefined) return { otlp: parseOtlp(options.otlp, options.otlpSampling), chosen: true };
  if (typeof state.otlp === "string") {
    return { otlp: parseOtlp(state.otlp, options.otlpSampling ?? String(state.otlpSampling ?? 1)), chosen: true };
  }
  if (!ask) return { otlp: null, chosen: false };
  for (let tries = 0; ; tries++) {
    try {
      return { otlp: parseOtlp(await ask(OTLP_QUESTION), options.otlpSampling), chosen: true };
    } catch (error) {
      if (tries >= 2) throw error;
      log(error instanceof Error ? error.message : String(error));
    }
  }
}

/** @param {DeployDeps} deps */
export async function deploy(deps) {
  const { wrangler, options, files, build, log } = deps;
  const toml = files.read("wrangler.toml");
  if (!toml) throw new Error("wrangler.toml not found: run npm run deploy from the repository's root");
  const buckets = bucketsOf(toml);
  const state = JSON.parse(files.read(STATE_FILE) ?? "{}");
  const produced = producedQueues(options, state, toml);
  const { otlp, chosen } = await otlpSetting(deps, state);
  describePlan(deps, produced, buckets, options.url ?? state.url, otlp);

  await build();
  log("built the dashboard");

  if (options.dryRun) {
    const placeholder = "00000000-0000-0000-0000-000000000000";
    const config = deployConfig(toml, {
      name: options.name,
      databaseName: options.database,
      databaseId: placeholder,
      publicUrl: options.url ?? state.url ?? UNKNOWN_URL,
      otlp,
      deliveryQueues: { produced, consumed: produced },
    });
    files.write(DRY_RUN_CONFIG, config);
    try {
      await must(wrangler, ["deploy", "--dry-run", "--outdir", DRY_RUN_OUTDIR, "--config", DRY_RUN_CONFIG]);
    } finally {
      files.remove(DRY_RUN_CONFIG);
    }
    log(`dry run: the Worker bundles (${DRY_RUN_OUTDIR}); nothing was deployed`);
    return { deployed: false };
  }

  const databaseId = await ensureDatabase(deps);
  const existingQueues = await accountQueues(wrangler);
  const deliveryQueues = { produced, consumed: consumedQueues(toml, existingQueues, produced) };
  await ensureQueues(deps, existingQueues, queuesOf(withDeliveryQueues(toml, deliveryQueues)));
  if (deliveryQueues.consumed > produced) {
    log(
      `  delivery queues ${produced} to ${deliveryQueues.consumed - 1}: still consumed (jobs in them are delivered), not sent to (--delivery-queues ${deliveryQueues.consumed} sends to them again)`,
    );
  }
  await ensureBuckets(deps, buckets);
  const secrets = await workerSecrets(deps);

  /** @type {Record<string, string>} */
  const newSecrets = {};
  if (!secrets.names.includes("ENCRYPTION_KEY")) newSecrets.ENCRYPTION_KEY = newEncryptionKey();
  const adminKey = secrets.names.includes("ADMIN_KEY_HASH") ? null : newAdminKey();
  if (adminKey) newSecrets.ADMIN_KEY_HASH = adminKeyHash(adminKey);
  log(
    `  secrets: ${Object.keys(newSecrets).length ? `setting ${Object.keys(newSecrets).join(", ")}` : "ENCRYPTION_KEY and ADMIN_KEY_HASH already set, kept"}`,
  );

  const writeConfig = (/** @type {string} */ publicUrl) =>
    files.write(
      DEPLOY_CONFIG,
      deployConfig(toml, { name: options.name, databaseName: options.database, databaseId, publicUrl, otlp, deliveryQueues }),
    );
  let publicUrl = options.url ?? state.url ?? UNKNOWN_URL;
  writeConfig(publicUrl);

  await must(wrangler, ["d1", "migrations", "apply", "DB", "--remote", "--config", DEPLOY_CONFIG]);
  log("  migrations: applied");

  const secretsFile = `.clarion/secrets-${randomBytes(6).toString("hex")}.json`;
  const deployArgs = ["deploy", "--config", DEPLOY_CONFIG];
  let output;
  if (Object.keys(newSecrets).length) {
    files.write(secretsFile, JSON.stringify(newSecrets), 0o600);
    try {
      output = await must(wrangler, [...deployArgs, "--secrets-file", secretsFile]);
    } finally {
      files.remove(secretsFile);
    }
  } else output = await must(wrangler, deployArgs);

  const reported = deployedUrlFrom(output);
  const url = options.url ?? reported ?? state.url;
  if (url && url !== publicUrl) {
    // The first deploy learns its workers.dev address from wrangler: deploy again so tracking links use it.
    publicUrl = url;
    writeConfig(publicUrl);
    await must(wrangler, deployArgs);
  }
  if (!url) log("  wrangler did not print the address: run again with --url https://your.domain so tracking links point there");
  const exported = chosen ? { otlp: otlpChoice(otlp), ...(otlp ? { otlpSampling: otlp.sampling } : {}) } : {};
  files.write(STATE_FILE, `${JSON.stringify({ url: url ?? null, databaseId, deliveryQueues: produced, ...exported }, null, 2)}\n`);
  log(`deployed ${url ?? ""} (PUBLIC_URL = ${publicUrl})`);

  if (newSecrets.ENCRYPTION_KEY) {
    log("");
    log("  ENCRYPTION_KEY (shown once; back it up — without it stored credentials cannot be decrypted):");
    log("");
    log(`    ${newSecrets.ENCRYPTION_KEY}`);
  }
  if (adminKey) {
    log("");
    log("  Admin credential (shown once; store it now — it manages environments and keys):");
    log("");
    log(`    ${adminKey}`);
    log("");
    if (!url) return { deployed: true, adminKey };
    try {
      const keys = await createFirstEnvironments(deps, url, adminKey);
      log("  Environment keys (shown once):");
      for (const [slug, key] of Object.entries(keys)) log(`    ${slug.padEnd(12)} ${key}`);
      return { deployed: true, adminKey, keys };
    } catch (error) {
      log(`  could not create the first environments yet (${error instanceof Error ? error.message : String(error)}).`);
      log(`  Create them with: CLARION_URL=${url} CLARION_ADMIN_KEY=<the credential above> npx clarion envs create production`);
    }
  }
  return { deployed: true, adminKey };
}
