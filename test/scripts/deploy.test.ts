// `npm run deploy`'s planning against a fake wrangler: what exists is found, what is missing is
// created, and a second run is an upgrade that recreates nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY_CONFIG } from "../../scripts/deploy/config.mjs";
import { deploy, DRY_RUN_CONFIG, STATE_FILE } from "../../scripts/deploy/deploy.mjs";
import { bucketNamesFrom, databaseIdFrom, deployedUrlFrom, queueNamesFrom } from "../../scripts/deploy/parse.mjs";
import type { WranglerResult } from "../../scripts/deploy/wrangler.mjs";
import { unstable_readConfig } from "wrangler";

const TOML = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
const URL_REPORTED = "https://clarion.acme.workers.dev";
const DB_ID = "5f0c1a2e-7d3b-4c8e-9a6f-2b1d3e4f5a6b";

const queueTable = (names: string[]) =>
  [
    "┌──────────┬────────────────────┬────────────┐",
    "│ id       │ name               │ created_on │",
    "├──────────┼────────────────────┼────────────┤",
    ...names.map((name, i) => `│ q${i}       │ ${name.padEnd(18)} │ 2026-11-01 │`),
    "└──────────┴────────────────────┴────────────┘",
  ].join("\n");

/** `wrangler r2 bucket list` as wrangler 4 prints it (no JSON), in colour as on a terminal. */
const bucketBlocks = (names: string[]) =>
  [
    "Listing buckets...",
    ...names.map(
      (name) =>
        `\u001b[37mname:\u001b[39m           \u001b[90m${name}\u001b[39m\n\u001b[37mcreation_date:\u001b[39m  \u001b[90m2026-11-01T09:00:00.000Z\u001b[39m`,
    ),
  ].join("\n\n");

/** A Cloudflare account as wrangler shows it, changed by the commands the deploy runs. */
function fakeAccount(
  initial: { databases?: string[]; queues?: string[]; buckets?: string[]; secrets?: string[] | "no worker" | "error" } = {},
) {
  const account = {
    databases: new Set(initial.databases ?? []),
    queues: new Set(initial.queues ?? []),
    buckets: new Set(initial.buckets ?? []),
    secrets: initial.secrets ?? ("no worker" as string[] | "no worker" | "error"),
    calls: [] as string[][],
    secretFiles: [] as Record<string, string>[],
  };
  const files = new Map<string, string>([["wrangler.toml", TOML]]);
  const ok = (stdout = ""): WranglerResult => ({ ok: true, stdout });
  const wrangler = async (args: string[]): Promise<WranglerResult> => {
    account.calls.push(args);
    const [a, b] = args;
    if (a === "d1" && b === "list")
      return ok(JSON.stringify([...account.databases].map((name) => ({ uuid: DB_ID, name, version: "production" }))));
    if (a === "d1" && b === "create") {
      account.databases.add(args[2]!);
      return ok("✅ Successfully created DB");
    }
    if (a === "queues" && b === "list") return ok(args[3] === "1" ? queueTable([...account.queues]) : queueTable([]));
    if (a === "queues" && b === "create") {
      account.queues.add(args[2]!);
      return ok();
    }
    if (a === "r2" && b === "bucket" && args[2] === "list") return ok(bucketBlocks([...account.buckets]));
    if (a === "r2" && b === "bucket" && args[2] === "create") {
      if (account.buckets.has(args[3]!))
        return { ok: false, stdout: "", stderr: "✘ [ERROR] The bucket you tried to create already exists [code: 10004]", code: 1 };
      account.buckets.add(args[3]!);
      return ok(`Creating bucket '${args[3]}'...\n✅ Created bucket '${args[3]}' with default storage class of Standard.`);
    }
    if (a === "secret" && b === "list") {
      if (account.secrets === "no worker")
        return { ok: false, stdout: "", stderr: "✘ [ERROR] This Worker does not exist on your account. [code: 10007]", code: 1 };
      if (account.secrets === "error") return { ok: false, stdout: "", stderr: "✘ [ERROR] fetch failed", code: 1 };
      return ok(JSON.stringify(account.secrets.map((name) => ({ name, type: "secret_text" }))));
    }
    if (a === "d1" && b === "migrations") return ok("No migrations to apply!");
    if (a === "deploy") {
      const secretsFile = args[args.indexOf("--secrets-file") + 1];
      if (args.includes("--secrets-file")) {
        const added = JSON.parse(files.get(secretsFile!)!);
        account.secretFiles.push(added);
        account.secrets = [...(Array.isArray(account.secrets) ? account.secrets : []), ...Object.keys(added)];
      }
      return ok(
        args.includes("--dry-run")
          ? "--dry-run: exiting now."
          : `Uploaded clarion\nDeployed clarion triggers\n  ${URL_REPORTED}\nCurrent Version ID: 1`,
      );
    }
    throw new Error(`unexpected wrangler ${args.join(" ")}`);
  };
  return { account, files, wrangler };
}

/** The admin API of the freshly deployed Worker. */
function fakeAdminApi() {
  const requests: string[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    requests.push(`${init.method} ${path}`);
    const body =
      init.method === "GET" ? { data: [], nextCursor: null } : path.endsWith("/keys") ? { key: `ck_${path.split("/")[4]}_secret` } : {};
    return new Response(JSON.stringify(body), { status: init.method === "GET" ? 200 : 201 });
  }) as typeof globalThis.fetch;
  return { requests, fetch };
}

async function runDeploy(
  fake: ReturnType<typeof fakeAccount>,
  options: {
    dryRun?: boolean;
    url?: string;
    otlp?: string;
    otlpSampling?: string;
    deliveryQueues?: string;
    ask?: (question: string) => Promise<string>;
  } = {},
  api = fakeAdminApi(),
) {
  const log: string[] = [];
  let built = 0;
  const result = await deploy({
    wrangler: fake.wrangler,
    options: {
      dryRun: options.dryRun ?? false,
      url: options.url,
      name: "clarion",
      database: "clarion",
      otlp: options.otlp,
      otlpSampling: options.otlpSampling,
      deliveryQueues: options.deliveryQueues,
    },
    ask: options.ask,
    files: {
      read: (path) => fake.files.get(path) ?? null,
      write: (path, text) => void fake.files.set(path, text),
      remove: (path) => void fake.files.delete(path),
      list: (dir) => (dir === "migrations" ? ["0000_init.sql", "0001_delivery.sql", "meta"] : []),
    },
    build: async () => void built++,
    fetch: api.fetch,
    log: (line) => log.push(line),
    waitMs: 1,
  });
  return { result, log: log.join("\n"), built, api };
}

const commands = (calls: string[][]) => calls.map((args) => args.filter((a) => !a.startsWith(".clarion/secrets-")).join(" "));

describe("npm run deploy on a fresh account", () => {
  it("creates the database, the queues and the log's archive bucket, reading their ids from wrangler", async () => {
    const fake = fakeAccount();
    await runDeploy(fake);
    expect(commands(fake.account.calls)).toEqual(
      expect.arrayContaining([
        "d1 create clarion",
        "queues create clarion-delivery-0",
        "queues create clarion-delivery-1",
        "queues create clarion-delivery-dlq",
        "queues create clarion-webhooks",
        "r2 bucket create clarion-archive",
      ]),
    );
    expect(fake.files.get(DEPLOY_CONFIG)).toContain(`database_id = "${DB_ID}"`);
  });

  it("creates the bucket before the first deploy, which fails on a binding to a missing bucket", async () => {
    const fake = fakeAccount();
    const { log } = await runDeploy(fake);
    const run = commands(fake.account.calls);
    expect(run.indexOf("r2 bucket create clarion-archive")).toBeLessThan(run.findIndex((c) => c.startsWith("deploy")));
    expect(log).toContain("R2 bucket clarion-archive: created");
  });

  it("keeps a bucket the account already has", async () => {
    const fake = fakeAccount({ buckets: ["other", "clarion-archive"] });
    const { log } = await runDeploy(fake);
    expect(commands(fake.account.calls).filter((c) => c.startsWith("r2 bucket create"))).toEqual([]);
    expect(log).toContain("R2 bucket clarion-archive: found");
  });

  it("builds the dashboard, applies migrations before deploying, and sets both secrets with the first version", async () => {
    const fake = fakeAccount();
    const { built } = await runDeploy(fake);
    expect(built).toBe(1);
    const order = commands(fake.account.calls).filter((c) => c.startsWith("d1 migrations") || c.startsWith("deploy"));
    expect(order).toEqual([
      `d1 migrations apply DB --remote --config ${DEPLOY_CONFIG}`,
      `deploy --config ${DEPLOY_CONFIG} --secrets-file`,
      `deploy --config ${DEPLOY_CONFIG}`,
    ]);
    expect(Object.keys(fake.account.secretFiles[0]!).sort()).toEqual(["ADMIN_KEY_HASH", "ENCRYPTION_KEY"]);
    expect([...fake.files.keys()].some((path) => path.startsWith(".clarion/secrets-"))).toBe(false);
  });

  it("points PUBLIC_URL at the address wrangler reports and remembers it", async () => {
    const fake = fakeAccount();
    await runDeploy(fake);
    expect(fake.files.get(DEPLOY_CONFIG)).toContain(`PUBLIC_URL = "${URL_REPORTED}"`);
    expect(JSON.parse(fake.files.get(STATE_FILE)!).url).toBe(URL_REPORTED);
  });

  it("uses --url for PUBLIC_URL and deploys once", async () => {
    const fake = fakeAccount();
    await runDeploy(fake, { url: "https://notify.acme.com" });
    expect(fake.files.get(DEPLOY_CONFIG)).toContain('PUBLIC_URL = "https://notify.acme.com"');
    expect(commands(fake.account.calls).filter((c) => c.startsWith("deploy"))).toHaveLength(1);
  });

  it("prints the admin credential once and creates the first environments' keys through the admin API", async () => {
    const fake = fakeAccount();
    const { result, log, api } = await runDeploy(fake);
    expect(result.adminKey).toMatch(/^clarion_admin_[A-Za-z0-9]{32}$/);
    expect(log).toContain(result.adminKey);
    expect(api.requests).toEqual([
      "GET /v1/admin/environments",
      "POST /v1/admin/environments",
      "POST /v1/admin/environments/production/keys",
      "POST /v1/admin/environments",
      "POST /v1/admin/environments/development/keys",
    ]);
    expect(log).toContain("ck_production_secret");
  });

  it("prints the new ENCRYPTION_KEY once, to be backed up", async () => {
    const fake = fakeAccount();
    const { log } = await runDeploy(fake);
    expect(log).toContain(fake.account.secretFiles[0]!.ENCRYPTION_KEY);
  });
});

describe("npm run deploy again (an upgrade)", () => {
  it("recreates nothing, keeps the secrets, applies migrations and deploys once", async () => {
    const fake = fakeAccount();
    await runDeploy(fake);
    fake.account.calls.length = 0;
    const again = await runDeploy(fake);
    const run = commands(fake.account.calls);
    expect(run.filter((c) => c.includes("create"))).toEqual([]);
    expect(run).toContain(`d1 migrations apply DB --remote --config ${DEPLOY_CONFIG}`);
    expect(run.filter((c) => c.startsWith("deploy"))).toEqual([`deploy --config ${DEPLOY_CONFIG}`]);
    expect(fake.account.secretFiles).toHaveLength(1);
    expect(again.result.adminKey).toBeNull();
    expect(again.api.requests).toEqual([]);
    expect(fake.files.get(DEPLOY_CONFIG)).toContain(`PUBLIC_URL = "${URL_REPORTED}"`);
  });

  it("sets ENCRYPTION_KEY only when the Worker lacks it", async () => {
    const fake = fakeAccount({
      databases: ["clarion"],
      queues: ["clarion-delivery-0", "clarion-delivery-1", "clarion-delivery-dlq"],
      secrets: ["ADMIN_KEY_HASH"],
    });
    await runDeploy(fake);
    expect(fake.account.secretFiles.map((s) => Object.keys(s))).toEqual([["ENCRYPTION_KEY"]]);
  });

  it("stops before deploying when it cannot read the secrets, rather than replace ENCRYPTION_KEY", async () => {
    const fake = fakeAccount({ secrets: "error" });
    await expect(runDeploy(fake)).rejects.toThrow(/cannot read the Worker's secrets/);
    expect(commands(fake.account.calls).filter((c) => c.startsWith("deploy"))).toEqual([]);
  });
});

describe("npm run deploy -- --dry-run", () => {
  it("builds and bundles with wrangler deploy --dry-run, touching nothing remote", async () => {
    const fake = fakeAccount();
    const { built, log } = await runDeploy(fake, { dryRun: true });
    expect(built).toBe(1);
    expect(commands(fake.account.calls)).toEqual([`deploy --dry-run --outdir .wrangler/deploy-dry-run --config ${DRY_RUN_CONFIG}`]);
    expect(fake.files.has(DRY_RUN_CONFIG)).toBe(false);
    expect(log).toContain("0001_delivery.sql");
  });
});

/** The config as wrangler itself reads it: what it would deploy with. */
function wranglerReads(toml: string) {
  const dir = mkdtempSync(join(tmpdir(), "clarion-deploy-"));
  try {
    const path = join(dir, "wrangler.toml");
    writeFileSync(path, toml);
    return unstable_readConfig({ config: path });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const observabilityOf = (toml: string) => wranglerReads(toml).observability;

/** The delivery queues a config binds, as wrangler reads it: producers by binding, consumers with their settings. */
function deliveryQueuesIn(toml: string) {
  const queues = wranglerReads(toml).queues as {
    producers?: { binding: string; queue: string }[];
    consumers?: { queue: string; [setting: string]: unknown }[];
  };
  const producers = queues.producers ?? [];
  const consumers = queues.consumers ?? [];
  const delivery = (queue: string) => /^clarion-delivery-\d+$/.test(queue);
  return {
    producers: producers.filter((p) => p.binding.startsWith("DELIVERY_QUEUE_")).map((p) => `${p.binding} ${p.queue}`),
    consumers: consumers.filter((c) => delivery(c.queue)),
    others: [...producers.map((p) => p.queue), ...consumers.map((c) => c.queue)].filter((q) => !delivery(q)),
  };
}

describe("npm run deploy -- --delivery-queues N", () => {
  const consumerOf = (queue: string) => ({
    queue,
    max_batch_size: 100,
    max_batch_timeout: 0.1,
    max_retries: 10,
    dead_letter_queue: "clarion-delivery-dlq",
  });

  it("binds N queues named after the first, each consumed with the first's settings, and creates them", async () => {
    const fake = fakeAccount();
    const { log } = await runDeploy(fake, { deliveryQueues: "5" });
    const bound = deliveryQueuesIn(fake.files.get(DEPLOY_CONFIG)!);
    expect(bound.producers).toEqual([0, 1, 2, 3, 4].map((n) => `DELIVERY_QUEUE_${n} clarion-delivery-${n}`));
    expect(bound.consumers).toEqual([0, 1, 2, 3, 4].map((n) => consumerOf(`clarion-delivery-${n}`)));
    // The dead-letter and webhook queues are left as wrangler.toml has them.
    expect(bound.others).toEqual(deliveryQueuesIn(TOML).others);
    expect(commands(fake.account.calls).filter((c) => c.startsWith("queues create clarion-delivery-"))).toEqual([
      ...[0, 1, 2, 3, 4].map((n) => `queues create clarion-delivery-${n}`),
      "queues create clarion-delivery-dlq",
    ]);
    expect(log).toContain("(5 for delivery");
    expect(JSON.parse(fake.files.get(STATE_FILE)!).deliveryQueues).toBe(5);
  });

  it("keeps wrangler.toml's two without the option, and an upgrade keeps the number chosen before", async () => {
    const fake = fakeAccount();
    await runDeploy(fake);
    expect(deliveryQueuesIn(fake.files.get(DEPLOY_CONFIG)!).producers).toHaveLength(2);
    await runDeploy(fake, { deliveryQueues: "3" });
    fake.account.calls.length = 0;
    await runDeploy(fake);
    expect(deliveryQueuesIn(fake.files.get(DEPLOY_CONFIG)!).producers).toHaveLength(3);
    expect(commands(fake.account.calls).filter((c) => c.includes("create"))).toEqual([]);
  });

  it("going down keeps consuming the queues it stops sending to, so their jobs are still delivered", async () => {
    const fake = fakeAccount();
    await runDeploy(fake, { deliveryQueues: "4" });
    const { log } = await runDeploy(fake, { deliveryQueues: "1" });
    const bound = deliveryQueuesIn(fake.files.get(DEPLOY_CONFIG)!);
    expect(bound.producers).toEqual(["DELIVERY_QUEUE_0 clarion-delivery-0"]);
    expect(bound.consumers.map((c) => c.queue)).toEqual([0, 1, 2, 3].map((n) => `clarion-delivery-${n}`));
    expect(log).toContain("delivery queues 1 to 3: still consumed (jobs in them are delivered), not sent to");
  });

  it("a clone without the state file consumes every delivery queue the account has", async () => {
    const fake = fakeAccount({ queues: ["clarion-delivery-0", "clarion-delivery-1", "clarion-delivery-6", "other-7"] });
    await runDeploy(fake);
    const bound = deliveryQueuesIn(fake.files.get(DEPLOY_CONFIG)!);
    expect(bound.producers).toHaveLength(2);
    expect(bound.consumers.map((c) => c.queue)).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => `clarion-delivery-${n}`));
  });

  it("refuses a number outside 1 to 100 before touching anything", async () => {
    for (const wrong of ["0", "101", "2.5", "many"]) {
      const fake = fakeAccount();
      await expect(runDeploy(fake, { deliveryQueues: wrong })).rejects.toThrow(/--delivery-queues takes a whole number from 1 to 100/);
      expect(fake.account.calls).toEqual([]);
    }
  });

  it("bundles the dry run with the queues chosen", async () => {
    const fake = fakeAccount();
    const written: string[] = [];
    const set = fake.files.set.bind(fake.files);
    fake.files.set = (path: string, text: string) => {
      if (path === DRY_RUN_CONFIG) written.push(text);
      return set(path, text);
    };
    await runDeploy(fake, { dryRun: true, deliveryQueues: "3" });
    expect(deliveryQueuesIn(written[0]!).producers).toHaveLength(3);
  });
});

/** A person at the terminal answering the deploy's questions in turn. */
const answering = (...answers: string[]) => {
  const asked: string[] = [];
  const ask = async (question: string) => {
    asked.push(question);
    return answers.shift() ?? "";
  };
  return { asked, ask };
};

describe("npm run deploy with OpenTelemetry export", () => {
  it("--otlp <prefix> exports traces and logs to that prefix's two destinations, as wrangler reads the config", async () => {
    const fake = fakeAccount();
    const { log } = await runDeploy(fake, { otlp: "honeycomb" });
    expect(observabilityOf(fake.files.get(DEPLOY_CONFIG)!)).toEqual({
      enabled: true,
      traces: { enabled: true, destinations: ["honeycomb-traces"], head_sampling_rate: 1 },
      logs: { enabled: true, destinations: ["honeycomb-logs"], head_sampling_rate: 1 },
    });
    expect(log).toContain('traces exported to the destination "honeycomb-traces"');
  });

  it("takes the two destinations by name and a sampling rate", async () => {
    const fake = fakeAccount();
    await runDeploy(fake, { otlp: "grafana-tempo, grafana-loki", otlpSampling: "0.1" });
    const observability = observabilityOf(fake.files.get(DEPLOY_CONFIG)!);
    expect(observability?.traces).toEqual({ enabled: true, destinations: ["grafana-tempo"], head_sampling_rate: 0.1 });
    expect(observability?.logs).toEqual({ enabled: true, destinations: ["grafana-loki"], head_sampling_rate: 0.1 });
  });

  it("leaves wrangler.toml's observability as it is without export", async () => {
    const fake = fakeAccount();
    await runDeploy(fake, { otlp: "off" });
    expect(observabilityOf(fake.files.get(DEPLOY_CONFIG)!)).toEqual({ enabled: true });
    expect(JSON.parse(fake.files.get(STATE_FILE)!).otlp).toBe("off");
  });

  it("asks at a terminal, and an upgrade keeps the answer without asking again", async () => {
    const fake = fakeAccount();
    const person = answering("axiom");
    await runDeploy(fake, { ask: person.ask });
    expect(person.asked).toHaveLength(1);
    expect(person.asked[0]).toMatch(/OpenTelemetry/);
    expect(observabilityOf(fake.files.get(DEPLOY_CONFIG)!)?.logs?.destinations).toEqual(["axiom-logs"]);
    const again = answering();
    await runDeploy(fake, { ask: again.ask });
    expect(again.asked).toEqual([]);
    expect(observabilityOf(fake.files.get(DEPLOY_CONFIG)!)?.traces?.destinations).toEqual(["axiom-traces"]);
  });

  it("asks again after an answer it cannot use, and takes Enter for no", async () => {
    const fake = fakeAccount();
    const person = answering("not a name!", "");
    const { log } = await runDeploy(fake, { ask: person.ask });
    expect(person.asked).toHaveLength(2);
    expect(log).toContain("--otlp takes a destination prefix");
    expect(observabilityOf(fake.files.get(DEPLOY_CONFIG)!)).toEqual({ enabled: true });
  });

  it("in CI (nobody to ask, no --otlp) deploys without export and leaves the question for a later deploy", async () => {
    const fake = fakeAccount();
    await runDeploy(fake);
    expect(observabilityOf(fake.files.get(DEPLOY_CONFIG)!)).toEqual({ enabled: true });
    expect(JSON.parse(fake.files.get(STATE_FILE)!)).not.toHaveProperty("otlp");
  });

  it("refuses a sampling rate outside (0, 1] before touching anything", async () => {
    const fake = fakeAccount();
    await expect(runDeploy(fake, { otlp: "honeycomb", otlpSampling: "5" })).rejects.toThrow(/--otlp-sampling/);
    expect(fake.account.calls).toEqual([]);
  });

  it("bundles the dry run with the export settings", async () => {
    const fake = fakeAccount();
    const written: string[] = [];
    const files = fake.files;
    const set = files.set.bind(files);
    files.set = (path: string, text: string) => {
      if (path === DRY_RUN_CONFIG) written.push(text);
      return set(path, text);
    };
    await runDeploy(fake, { dryRun: true, otlp: "honeycomb" });
    expect(observabilityOf(written[0]!)?.traces?.destinations).toEqual(["honeycomb-traces"]);
  });
});

describe("reading wrangler's output", () => {
  it("finds a database by name in d1 list --json", () => {
    const out = JSON.stringify([
      { uuid: "a", name: "other" },
      { uuid: "b", name: "clarion" },
    ]);
    expect([databaseIdFrom(out, "clarion"), databaseIdFrom(out, "missing")]).toEqual(["b", null]);
  });

  it("reads the name column of queues list", () => {
    expect(queueNamesFrom(queueTable(["clarion-delivery-0", "other"]))).toEqual(["clarion-delivery-0", "other"]);
    expect(queueNamesFrom("No queues found.")).toEqual([]);
  });

  it("reads the bucket names of r2 bucket list, coloured or not", () => {
    expect(bucketNamesFrom(bucketBlocks(["clarion-archive", "media"]))).toEqual(["clarion-archive", "media"]);
    expect(bucketNamesFrom("Listing buckets...\nname:           plain\ncreation_date:  2026-11-01")).toEqual(["plain"]);
    expect(bucketNamesFrom("Listing buckets...\n")).toEqual([]);
  });

  it("finds the workers.dev address in deploy's output", () => {
    expect(deployedUrlFrom(`Deployed clarion triggers (1.2 sec)\n  ${URL_REPORTED}\n`)).toBe(URL_REPORTED);
    expect(deployedUrlFrom("No deploy targets")).toBeNull();
  });
});
