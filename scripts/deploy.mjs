// `npm run deploy [-- --dry-run] [--url https://notify.example.com] [--name clarion] [--database clarion]`
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { deploy } from "./deploy/deploy.mjs";
import { wranglerRunner } from "./deploy/wrangler.mjs";
import { buildDashboard } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    "dry-run": { type: "boolean", default: false },
    url: { type: "string" },
    name: { type: "string", default: "clarion" },
    database: { type: "string", default: "clarion" },
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

try {
  await deploy({
    wrangler: wranglerRunner(),
    options: { dryRun: values["dry-run"], url: values.url?.replace(/\/+$/, ""), name: values.name, database: values.database },
    files,
    build: () => buildDashboard(),
    log: (line) => console.log(line),
  });
} catch (error) {
  console.error(`\ndeploy failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
