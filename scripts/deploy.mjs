// `npm run deploy [-- --dry-run] [--url https://notify.example.com] [--name clarion] [--database clarion]
//   [--otlp <destination prefix> | <traces>,<logs> | off] [--otlp-sampling 0.1]` (or CLARION_OTLP, CLARION_OTLP_SAMPLING)
//   [--delivery-queues N] (default: what the last deploy chose, else 2; docs/architecture.md "More queues")
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { deploy } from "./deploy/deploy.mjs";
import { wranglerRunner } from "./deploy/wrangler.mjs";
import { buildDashboardOnce } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    "dry-run": { type: "boolean", default: false },
    url: { type: "string" },
    name: { type: "string", default: "clarion" },
    database: { type: "string", default: "clarion" },
    otlp: { type: "string" },
    "otlp-sampling": { type: "string" },
    "delivery-queues": { type: "string" },
  },
  strict: true,
});
if (values.url && !/^https?:\/\/[^/\s]+/.test(values.url)) {
  console.error("--url takes the deployment's address, e.g. https://notify.example.com");
  process.exit(2);
}

/** @type {import("./deploy/deploy.mjs").Files} */
const files = {
  read: (path) => (existsSync(path) ? readFileSync(path, "utf8") : null),
  write: (path, text, mode) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, mode ? { mode } : undefined);
    if (mode) chmodSync(path, mode);
  },
  remove: (path) => rmSync(path, { force: true }),
  list: (dir) => (existsSync(dir) ? readdirSync(dir).sort() : []),
};

/** The OTLP question is asked only of someone at a terminal; CI answers with --otlp or CLARION_OTLP. */
const ask =
  process.stdin.isTTY && process.env.CI !== "true"
    ? async (/** @type {string} */ question) => {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        try {
          return await rl.question(question);
        } finally {
          rl.close();
        }
      }
    : undefined;

try {
  await deploy({
    wrangler: wranglerRunner(),
    options: {
      dryRun: values["dry-run"],
      url: values.url?.replace(/\/+$/, ""),
      name: values.name,
      database: values.database,
      otlp: values.otlp ?? process.env.CLARION_OTLP,
      otlpSampling: values["otlp-sampling"] ?? process.env.CLARION_OTLP_SAMPLING,
      deliveryQueues: values["delivery-queues"],
    },
    ask,
    files,
    build: buildDashboardOnce,
    log: (line) => console.log(line),
  });
} catch (error) {
  console.error(`\ndeploy failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
