// `npm run deploy:dashboard [-- --api-url https://clarion.acme.com] [--project clarion-dashboard] [--dry-run]`
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { deployDashboard, PAGES_OUT_DIR } from "./deploy/dashboard.mjs";
import { wranglerRunner } from "./deploy/wrangler.mjs";
import { buildDashboard } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    "dry-run": { type: "boolean", default: false },
    "api-url": { type: "string" },
    project: { type: "string", default: "clarion-dashboard" },
    branch: { type: "string", default: "main" },
  },
  strict: true,
});

/** Every file under `dir`, by its path inside it. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => relative(dir, join(dir, path)))
    .sort();
}

const outDir = process.env.DASHBOARD_OUT_DIR ?? PAGES_OUT_DIR;

try {
  await deployDashboard({
    wrangler: wranglerRunner(),
    options: {
      dryRun: values["dry-run"],
      apiUrl: values["api-url"] ?? process.env.VITE_API_URL,
      project: values.project,
      branch: values.branch,
      outDir,
    },
    read: (path) => (existsSync(path) ? readFileSync(path, "utf8") : null),
    list: filesUnder,
    build: (env) => buildDashboard(["--mode", "pages"], env),
    log: (line) => console.log(line),
  });
} catch (error) {
  console.error(`\ndeploy:dashboard failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
